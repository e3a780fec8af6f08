/**
 * What a person's text asks, when it is only questions the facts answer; null otherwise. Plain
 * rules over words, no language model: the same text always gets the same reading. A text that
 * asks for anything to change, even beside a question, is not understood: it goes to the agent.
 */

export type TopicName =
  | "recipients"
  | "email_count"
  | "files"
  | "hosts"
  | "body"
  | "subject"
  | "untrusted"
  | "approve"
  | "reject"
  | "sends"
  | "deletes"
  | "times"
  | "reads"
  | "guarantees";

/** One question understood: its topic and what narrows it. */
export interface Understood {
  topic: TopicName;
  fields?: readonly ("to" | "cc" | "bcc")[]; // recipients: which header fields (all three when not named)
  files?: "read" | "written" | "both"; // files: which calls
  content?: "email" | "file" | "post"; // body: of what
}

/** The longest text read as a question: a longer one goes to the agent. */
export const MAX_QUESTION_CHARS = 240;

/** The questions a text asks, in order; null when it is not wholly questions the facts answer. */
export function understandQuestion(text: string): Understood[] | null {
  const raw = text.trim();
  if (raw.length === 0 || raw.length > MAX_QUESTION_CHARS || /[\r\n\u2028\u2029]/.test(raw)) return null;
  const sentences = raw
    .replace(/[’‘]/g, "'")
    .split(/(?<=[.!?;])\s+(?=\S)/)
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const out: Understood[] = [];
  for (const sentence of sentences) {
    const asked = understandSentence(sentence);
    if (asked === null) return null;
    for (const u of asked) if (!out.some((o) => sameQuestion(o, u))) out.push(u);
  }
  return out.length === 0 ? null : out;
}

const sameQuestion = (a: Understood, b: Understood) => JSON.stringify(a) === JSON.stringify(b);

// ---------------------------------------------------------------------------------------------
// One sentence.

/** A pattern matching any of its alternatives (each a regular expression's source), written one to a line. */
const anyOf = (...alternatives: string[]): RegExp => new RegExp(alternatives.join("|"));

/** A group of alternatives between `before` and `after`, such as `\b(a|b|c)\b`, written as a list. */
const wordsIn = (before: string, words: readonly string[], after: string, nonCapturing = false): RegExp =>
  new RegExp(`${before}(${nonCapturing ? "?:" : ""}${words.join("|")})${after}`);

/** Words that ask for a change, wherever they stand: a sentence holding one is for the agent. */
const CHANGE_WORDS = wordsIn(
  String.raw`\b`,
  [
    "instead",
    "rather",
    "don't",
    "dont",
    "do not",
    "doesn't need",
    "never",
    "shouldn't",
    "should",
    "must",
    "need to",
    "needs to",
    "have to",
    "has to",
    "i want",
    "i'd like",
    "i would like",
    "i need",
    "we need",
    "make sure",
    "ensure",
    "let's",
    "lets",
    "go ahead",
    "but",
    "except",
    "without",
    "unless",
    "also",
    "too",
    "as well",
    "plus",
    "then",
    "please (?!tell|show|list|explain|describe|say|confirm|let me know)",
  ],
  String.raw`\b`,
);

/** Verbs that change the program: after "can you", "and" or a comma they ask the agent to do something. */
const CHANGE_VERBS = wordsIn(
  "^",
  [
    "add",
    "remove",
    "drop",
    "delete",
    "replace",
    "change",
    "swap",
    "switch",
    "edit",
    "fix",
    "rewrite",
    "include",
    "exclude",
    "cancel",
    "stop",
    "use",
    "make",
    "put",
    "move",
    "rename",
    "set",
    "update",
    "limit",
    "restrict",
    "keep",
    "skip",
    "try",
    "redo",
    "retry",
    "resubmit",
    "split",
    "merge",
    "shorten",
    "attach",
    "forward",
    "reply",
    "cc",
    "bcc",
    "let",
    "allow",
    "avoid",
    "ask",
    "wait",
    "approve",
    "reject",
    "send",
    "email",
    "mail",
    "write",
    "post",
    "create",
    "draft",
    "run",
    "correct",
    "adjust",
    "modify",
    "undo",
    "revert",
    "remember",
  ],
  String.raw`(?=\s|$)`,
);

/** Verbs a question names what the program does with: "which files will it read and write?". */
const EFFECT_VERBS = /^(?:send|email|mail|write|post|create|draft|run|delete)s?\b/;

/** Openers that ask for information, with what they leave to read: "tell me what files will be written". */
const OPENERS: readonly RegExp[] = [
  /^(?:(?:ok|okay|so|hey|hi|and|quick question|question)[,:]?\s+)+/,
  /^please\s+/,
  /^(?:can|could|would|will)\s+you\s+(?:please\s+)?(?=tell|show|list|explain|describe|say|confirm|let me know|give me)/,
  /^(?:tell|show|give)\s+me\s+(?:about\s+)?/,
  /^(?:let me know|i(?:'d| would)? (?:like|want) to know|i wonder|i'm wondering|i am wondering|explain|describe|confirm|say)\s+/,
];

/** The auxiliaries a question may start or go on with: "will it…", "and does it…". */
const AUXILIARIES = ["will", "would", "does", "do", "did", "is", "are", "was", "were", "can", "could", "has", "have"];

/**
 * The start of a question once an opener is gone: an interrogative, an auxiliary, or a list ("list the recipients").
 */
const QUESTION_START = wordsIn(
  "^",
  [
    "who",
    "whom",
    "whose",
    "what",
    "what's",
    "whats",
    "which",
    "how",
    "where",
    "when",
    "whether",
    "if",
    ...AUXILIARIES,
    "list",
    "any",
    "anything",
    "is there",
    "are there",
    String.raw`summar\w*`,
  ],
  String.raw`\b`,
  true,
);

/** After "and" or a comma inside a question: what may follow (another question, or the same one going on). */
const CONTINUES = wordsIn(
  "^",
  [
    "who",
    "whom",
    "whose",
    "what",
    "which",
    "how",
    "where",
    "when",
    "whether",
    ...AUXILIARIES,
    "to whom",
    "from where",
    "the",
    "its",
    "their",
    "any",
    "anything",
    "all",
    "each",
    "read",
    "reads",
    "written",
    "writes",
    "write",
    "sent",
    "sends",
    "emailed",
    "mailed",
    "posted",
    "fetched",
    "deleted",
    "created",
    "listed",
    "opened",
    "cc",
    "bcc",
    "cc'd",
    "bcc'd",
    "to",
    "from",
    "where",
    "files?",
    "hosts?",
    "urls?",
    "subject",
    "body",
    "recipients?",
    "many",
    "often",
    "once",
    "more",
  ],
  String.raw`\b`,
  true,
);

function understandSentence(sentence: string): Understood[] | null {
  let s = sentence
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/\b(what|who|where|how|that|it|there)'s\b/g, "$1 is")
    .replace(/\bwon't\b/g, "will not")
    .replace(/\bcc's\b/g, "cc'd")
    .trim();
  const endsAsQuestion = s.endsWith("?");
  s = s
    .replace(/[.?!;]+$/, "")
    .replace(/[,\s]+please$/, "")
    .trim();
  if (s === "" || /["`<>{}[\]\\]/.test(s)) return null;
  let told = false; // "tell me ...", "show me ...": asks to be told, with or without a question word
  for (const [i, opener] of OPENERS.entries()) {
    const before = s;
    s = s.replace(opener, "");
    if (i >= 3 && s !== before) told = true;
  }
  s = s.trim();
  if (CHANGE_WORDS.test(s)) return null;
  if (/\b(?:can|could|would|will)\s+you\b/.test(s)) return null; // "can you ..." not asking to be told: a request
  if (
    /\b(?:do|does|did|will|would|can|could|is|are)\s+(?:not|n't)\b/.test(s) &&
    /\b(?:send|email|write|post)\b.*\bto\b/.test(s)
  )
    return null; // "do not send it to ...": a request
  if (
    CHANGE_VERBS.test(s) &&
    !/^(?:e-?mail|mail|draft|post|cc|bcc) (?:address|recipient|count|body|bodies|subject|content|text|field|line)/.test(
      s,
    )
  )
    return null; // "send it to Alice only?": a request, even with a question mark
  // A sentence may join questions with "and", "or" or a comma; each joint must go on as a question.
  for (const joint of s.matchAll(/(?:,|\band\b|\bor\b)\s*(?:(?:and|or)\s+)?([^\s,]+)/g)) {
    const next = joint[1]!;
    if (next.includes("@")) continue; // "bob@example.com and carol@example.com"
    if (CHANGE_VERBS.test(next) && !EFFECT_VERBS.test(next)) return null;
    if (!CONTINUES.test(next)) return null;
  }
  // ", send it to ...": a request
  if (/,\s*(?:and\s+|or\s+)?(?:send|email|mail|write|post|create|draft|run|delete)\b/.test(s)) return null;
  if (
    /\b(?:and|or)\s+(?:send|email|mail|post|create|draft|run|delete)\s+(?:it|this|that|them|the|a|an|to|only)\b/.test(s)
  )
    return null; // "and send it to ...": a request
  if (!told && !QUESTION_START.test(s) && !endsAsQuestion) return null;
  const pieces = s.split(
    /\s*(?:,\s*(?:and\s+|or\s+)?|\s(?:and|or)\s+)(?=(?:who|whom|whose|what|which|how|where|when|will|would|does|do|did|is|are|was|were|can|could|has|have|to whom)\b)/,
  );
  const out: Understood[] = [];
  for (const piece of pieces) {
    const asked = topicOf(piece.trim());
    if (asked === null) return null;
    out.push(asked);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Topics, checked in order: the first that fits a piece is what it asks.

const MAIL = String.raw`(?:e-?mails?|mails?|messages?|drafts?)`;
const WRITE_WORDS = /\b(?:writ\w*|wrote|creat\w*|sav\w*|modif\w*|overwrit\w*|chang\w*|touch\w*|updat\w*|stor\w*|put)\b/;
const READ_WORDS = /\b(?:read\w*|list\w*|open\w*|look\w* at|access\w*|load\w*|scan\w*)\b/;

interface TopicRule {
  topic: TopicName;
  asks: RegExp;
  narrow?: (piece: string) => Omit<Understood, "topic">;
}

const TOPIC_RULES: readonly TopicRule[] = [
  {
    topic: "reject",
    asks: anyOf(
      String.raw`\b(?:if|when|after) (?:i|we) (?:reject|deny|decline|refuse|say no|don't approve|do not approve|turn (?:it|this) down)`,
      String.raw`\b(?:what does|what will) (?:rejecting|denying|declining|refusing)\b`,
      String.raw`\b(?:rejecting|denying|declining)\b.*\b(?:do|happen|mean)\b`,
    ),
  },
  {
    topic: "approve",
    asks: anyOf(
      String.raw`\b(?:if|when|after|once) (?:i|we) (?:approve|accept|allow|say yes|confirm|agree|ok|okay|sign)`,
      String.raw`\b(?:what does|what will) (?:approving|accepting|allowing|confirming)\b`,
      String.raw`\b(?:approving|accepting)\b.*\b(?:do|happen|mean|let)\b`,
      String.raw`\bwhat (?:will|would|is going to) happen\b`,
      String.raw`\bwhat (?:does|will|would) (?:it|this|the program|this program|the script|this script|the request|this request) (?:do|actually do)\b`,
      String.raw`\bwhat is (?:it|this|this request|the program|this program) (?:doing|for|about)\b`,
      String.raw`\bsummar(?:y|ize|ise)\b`,
      String.raw`\bin (?:short|a sentence|brief)\b`,
    ),
  },
  {
    topic: "email_count",
    asks: anyOf(
      String.raw`\bhow many\b.*\b${MAIL}`,
      String.raw`\bnumber of ${MAIL}`,
      String.raw`\bhow many (?:times )?(?:will|does|would) (?:it|the program|this|this program) (?:send|e-?mail|mail)\b`,
      String.raw`\bhow many (?:are|will be|get|gets) (?:sent|e-?mailed|mailed)\b`,
    ),
  },
  {
    topic: "recipients",
    asks: anyOf(
      String.raw`\b(?:recipients?|addressees?|e-?mailed|mailed|cc'd|bcc'd|cced|bcced|addressed|to whom)\b`,
      String.raw`\b(?:cc|bcc)\b`,
      String.raw`\bsen[dt]s? (?:it |this |that |them |the ${MAIL} |an? ${MAIL} )?to\b`,
      String.raw`\b(?:going|goes|go) (?:out )?to\b`,
      String.raw`\bwho(?:m)?\b.*\b(?:gets?|getting|receives?|receiving|${MAIL}|sen[dt]s?|see|sees|reads? it|cc|bcc|to|notified|contacted|written to)\b`,
      String.raw`\bhow many (?:people|persons|recipients|addresses|addressees)\b`,
      String.raw`\bwhich (?:people|persons|addresses|address|e-?mail address(?:es)?|mailboxes)\b`,
      String.raw`\b(?:which|what) (?:e-?mail )?address(?:es)?\b`,
    ),
    narrow: (piece) => {
      const fields = (["to", "cc", "bcc"] as const).filter((f) =>
        (f === "to" ? /\bto field\b|\bto line\b|\bin to\b/ : new RegExp(String.raw`\b${f}(?:'d|ed)?\b`)).test(piece),
      );
      return fields.length === 0 ? {} : { fields };
    },
  },
  { topic: "subject", asks: /\bsubject(?: line)?s?\b|\btitles? of the (?:e-?mails?|mails?|messages?|drafts?)\b/ },
  {
    topic: "body",
    asks: anyOf(
      String.raw`\bbody\b`,
      String.raw`\bbodies\b`,
      String.raw`\b(?:what|which) (?:does|do|will|would) (?:it|the ${MAIL}|this ${MAIL}|the draft|the program|they|the file|the post|the request) (?:say|says|contain|write in|tell)\b`,
      String.raw`\bwhat is (?:in|inside) (?:it|the ${MAIL}|this ${MAIL}|the draft|them)\b`,
      String.raw`\b(?:contents?|wording|text) of (?:the |this |each )?(?:${MAIL}|draft|file|files|post|request)\b`,
      String.raw`\b${MAIL} (?:contents?|text|wording)\b`,
      String.raw`\bwhat (?:will|does|would) (?:it|the program) (?:say|post|upload|submit)\b`,
      String.raw`\bwhat (?:is|gets) (?:posted|uploaded|submitted)\b`,
      String.raw`\bwhat (?:will|does) (?:it|the program) write (?:in|into|to) (?:it|the file|them|the files)\b`,
    ),
    narrow: (piece) => ({
      content: /\bfiles?\b|\bwrite (?:in|into|to)\b/.test(piece)
        ? "file"
        : /\bposts?\b|\bposted\b|\bupload|\bsubmit|\brequests?\b|\bapi\b|\bserver\b/.test(piece)
          ? "post"
          : "email",
    }),
  },
  {
    topic: "untrusted",
    asks: anyOf(
      String.raw`\buntrusted\b`,
      String.raw`\bthird[- ]party\b`,
      String.raw`\bexternal (?:data|content|input|values?|sources?)\b`,
      String.raw`\bfrom (?:outside|the (?:internet|web|outside))\b`,
      String.raw`\bprovenance\b`,
      String.raw`\bwhere (?:do|does|did) (?:the |its |these |those )?(?:values?|data|arguments?|inputs?|addresses?|paths?|urls?) come from\b`,
      String.raw`\bwhere (?:is|are) (?:the |its )?(?:values?|data|arguments?|inputs?) (?:from|coming from)\b`,
      String.raw`\b(?:injection|injected|tainted|trustworthy|trust)\b`,
      String.raw`\bwho (?:controls|chose|chooses|picks|decides) (?:the |its )?(?:values?|data|arguments?|recipients?|addresses?)\b`,
    ),
  },
  { topic: "deletes", asks: /\b(?:delet\w*|remov\w*|eras\w*|destroy\w*|wip\w*|trash\w*|overwrit\w*|lose|lost)\b/ },
  {
    topic: "times",
    asks: anyOf(
      String.raw`\bmore than once\b`,
      String.raw`\bhow (?:many times|often)\b`,
      String.raw`\brepeat\w*\b`,
      String.raw`\bloops?\b`,
      String.raw`\bagain and again\b`,
      String.raw`\bonly once\b`,
      String.raw`\bjust once\b`,
      String.raw`\bruns? (?:once|twice|several times|multiple times)\b`,
      String.raw`\bonce or\b`,
    ),
  },
  {
    topic: "files",
    asks: anyOf(
      String.raw`\b(?:files?|paths?|director(?:y|ies)|folders?|dirs?|documents?|disk)\b`,
      String.raw`\bwhat (?:will|does|would) (?:it|the program) (?:write|save|create|change|modify|touch)\b`,
      String.raw`\bwhere (?:will|does|would) (?:it|the program) (?:write|save)\b`,
      String.raw`\bwhat (?:will|would) be (?:written|saved|created|changed|modified)\b`,
    ),
    narrow: (piece) => {
      const writes = WRITE_WORDS.test(piece);
      const reads = READ_WORDS.test(piece);
      return { files: writes === reads ? "both" : writes ? "written" : "read" };
    },
  },
  {
    topic: "hosts",
    asks: wordsIn(
      String.raw`\b`,
      [
        "hosts?",
        "domains?",
        "servers?",
        "urls?",
        "uris?",
        "(?:web)?sites?",
        "websites?",
        "endpoints?",
        "apis?",
        "web address(?:es)?",
        "internet",
        "network",
        "online",
        "web",
        String.raw`connect\w*`,
        String.raw`contact\w*`,
        "call out",
        "phone home",
        "http",
        "https",
      ],
      String.raw`\b`,
      true,
    ),
  },
  {
    topic: "sends",
    asks: anyOf(
      String.raw`\b(?:is|are|will|would|does|do) (?:anything|something|any ?thing|any data|any information|data|it|this|the program|information|info)\b.*\b(?:sen[dt]|posted|uploaded|shared|leave|leaks?|published|transmitted|go out|goes out)\b`,
      String.raw`\bsen[dt]s? (?:anything|something|out)\b`,
      String.raw`\bwhat (?:is|gets|will be|would be) (?:sent|posted|uploaded|shared)\b`,
      String.raw`\bwhat (?:does|will|would) (?:it|the program) (?:send|share|upload)\b`,
      String.raw`\bdoes (?:it|this|the program) (?:send|e-?mail|mail|post)\b`,
      String.raw`\b(?:any|anything|something) (?:sent|outgoing)\b`,
    ),
  },
  {
    topic: "reads",
    asks: anyOf(
      String.raw`\bwhat (?:does|will|would|can) (?:it|the program|this program|this) (?:read|look at|access|see|open|fetch|get|load)\b`,
      String.raw`\bwhat (?:data|information|info) (?:does|will|would|can) (?:it|the program|this program|this) (?:read|access|use|see|get|touch)\b`,
      String.raw`\bwhat (?:is|gets|will be) read\b`,
      String.raw`\b(?:reads?|accesses) what\b`,
    ),
  },
  {
    topic: "guarantees",
    asks: anyOf(
      String.raw`\bguarantee\w*\b`,
      String.raw`\bpromis\w*\b`,
      String.raw`\bproven\b`,
      String.raw`\bprove[sd]?\b`,
      String.raw`\bcontracts?\b`,
      String.raw`\bwhat is enforced\b`,
      String.raw`\bsafe\b`,
      String.raw`\bsafety\b`,
      String.raw`\bchecks?\b`,
    ),
  },
];

function topicOf(piece: string): Understood | null {
  for (const rule of TOPIC_RULES)
    if (rule.asks.test(piece)) return { topic: rule.topic, ...(rule.narrow?.(piece) ?? {}) };
  return null;
}
