// Preloaded (--import) by a thread started from src/, before its TypeScript module (thread-module.ts).
import { register } from "tsx/esm/api";

register();
