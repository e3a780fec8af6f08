import { z } from "zod";
import { Site } from "./facts.js";
import { Json } from "./json.js";

/**
 * One line of a preview: the manifest's `render` label, the value read from the preview op's answer ("n/a" if absent).
 */
export const PreviewField = z
  .object({
    label: z.string(),
    value: z.string(),
    multiline: z.boolean(), // the manifest lists the label in `multiline`: show it as a scrollable block
  })
  .strict();
export type PreviewField = z.infer<typeof PreviewField>;

/**
 * Which call a preview is for: the effect's index in `facts.effects`, its op and site, and the preview's own arguments'
 * values.
 */
const PreviewOf = {
  effect: z.number().int().nonnegative(),
  op: z.string(),
  site: Site,
  args: z.record(z.string(), Json), // the action's inputs the preview reads (e.g. { draft_id }); empty when they are not known
};

/**
 * What the approver is shown for one effect (and one value of its arguments) whose action
 * declares `[approval.preview]`: the fields in the manifest's `render` order, or `unavailable`,
 * a sentence ready to show ("Preview unavailable: <why>"). The approver may decide either way.
 * Only ever in the approver's view of a pending request; never on a route a submitter can read.
 */
export const PreviewShown = z.union([
  z.object({ ...PreviewOf, fields: z.array(PreviewField) }).strict(),
  z.object({ ...PreviewOf, unavailable: z.string().startsWith("Preview unavailable: ") }).strict(),
]);
export type PreviewShown = z.infer<typeof PreviewShown>;
