export declare const MAX_MEMORY_PAGES: number;
export declare function buildWasm(entry: string, outFile: string): Promise<string>;
export declare function connectorNames(): string[];
