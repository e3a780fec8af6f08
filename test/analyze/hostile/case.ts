/**
 * One hostile program. `source` marks with ⟦ where the refusal must point. `code` is the
 * diagnostic code (and `construct` the construct it names, when it names one). `seen` cases are
 * not refused: they must be analyzed with the trusted call visible, as `op` at the marker.
 */
export type HostileCase =
  | { name: string; source: string; code: string; construct?: string }
  | { name: string; source: string; seen: { op: string } };
