/**
 * How much data one trusted call's arguments may carry. The one bound for both readers of them:
 * the sandbox's serializer (inside QuickJS, where a program's 64 MiB memory must hold the value,
 * its JSON and the copy handed out) and the connector's marshal (callWithReceipt, agent actions),
 * so that what the sandbox lets through the connector accepts.
 */
export interface MarshalLimits {
  maxDepth: number; // nesting of arrays and objects
  maxNodes: number; // values in all, every array element and object field counted
  maxChars: number; // UTF-16 code units in all strings and keys
}

export const MARSHAL_LIMITS: MarshalLimits = { maxDepth: 64, maxNodes: 100_000, maxChars: 4 * 1024 * 1024 };
