import type { ManifestSet } from "../manifest/index.js";
import type { Facts, PreviewShown, StoredRequest } from "../model/index.js";
import { answerTopic, PREVIEW_TOPICS, type DecisionRules, type QuestionPreviews } from "./questions/topics.js";
import { understandQuestion, type TopicName } from "./questions/understand.js";

export type { DecisionRules, QuestionPreviews } from "./questions/topics.js";
export type { TopicName } from "./questions/understand.js";

/**
 * A question the facts answer, and the answer: deterministic lines, derived from the analysis
 * (and the previews the person is shown) alone. `question` is the question as countersign
 * understood it, in its own words: a surface shows that, never the asker's text (which could come
 * from a crafted link). `topic` is the first question's; `topics` every one the text asked.
 */
export interface FactAnswer {
  topic: TopicName;
  topics: TopicName[];
  question: string;
  lines: string[];
}

/** What the person is shown of the request besides its facts. */
export interface QuestionShown {
  previews?: QuestionPreviews | readonly PreviewShown[]; // the previews of this showing, or why there are none
  request?: StoredRequest; // its state, deadline and headline, for what deciding does
}

/**
 * Answer a question from the facts, without asking the agent: who gets mail, how many emails,
 * which files, hosts, what the body and subject are, what is untrusted, what approving or
 * rejecting does, whether anything is sent or deleted, how often it runs, what it reads, what it
 * guarantees. The text must be questions and nothing else (a question beside a request goes to
 * the agent); null when it is not questions the facts answer. `set`: the manifests the program was
 * analyzed with, for what a call does not show but acts on (the recipients of the draft
 * email.send_draft sends). `decided`: the decision the facts were given, for what an allow rule
 * lets such a read value be (the receipt's grant carries its condition).
 */
export function answerQuestion(
  facts: Facts,
  text: string,
  set: ManifestSet,
  decided?: DecisionRules,
  shown: QuestionShown = {},
): FactAnswer | null {
  const asked = understandQuestion(text);
  if (asked === null) return null;
  const previews =
    shown.previews === undefined
      ? undefined
      : Array.isArray(shown.previews)
        ? { shown: shown.previews as readonly PreviewShown[] }
        : (shown.previews as QuestionPreviews);
  const answers = asked.map((u) =>
    answerTopic(u, {
      facts,
      set,
      ...(decided === undefined ? {} : { decided }),
      ...(previews === undefined ? {} : { previews }),
      ...(shown.request === undefined ? {} : { request: shown.request }),
    }),
  );
  const topics = asked.map((u) => u.topic);
  return {
    topic: topics[0]!,
    topics,
    question: answers.map((a) => a.question).join(" "),
    lines: answers.flatMap((a) => a.lines),
  };
}

/** Whether answering `text` reads the previews shown (the draft a send acts on): only then are they fetched. */
export function questionNeedsPreviews(text: string): boolean {
  return understandQuestion(text)?.some((u) => PREVIEW_TOPICS.has(u.topic)) ?? false;
}
