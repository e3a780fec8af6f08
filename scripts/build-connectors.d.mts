export declare const MAX_MEMORY_PAGES: number;
export declare const METER_INTERVAL: number;
export declare function buildWasm(entry: string, outFile: string, options?: { meter?: boolean }): Promise<string>;
export declare function connectorNames(): string[];
