/**
 * Whether a conversation slice may hold something to remember, decided locally before any model call: a user
 * message that speaks in the first person about preferences, habits, identity or rules ("I prefer", "we always",
 * "my name is", "from now on", "don't ever"), or corrects the assistant ("no, use …", "actually …"). A task alone
 * ("read a.txt", "fix the test") is not; the seed asked the model about every 4 messages, which on a local model
 * costs a full generation for nothing most of the time.
 */
import type { Message } from "../protocol/message.ts";

const FIRST_PERSON = /\b(?:i|i'm|i've|i'd|my|me|mine|we|we're|our|us|eu|meu|minha|nós|nosso|nossa|prefiro|gosto|uso|sempre|nunca)\b/i;
const PREFERENCE = /\b(?:prefer\w*|like|likes|love|hate|dislike|use|uses|used|using|want|wants|need|needs|always|never|usually|work(?:s|ing)? (?:on|at|with)|am|name|call me|don't|do not|dont|avoid|rather|favou?rite|style|convention|habit|prefiro|gosto|uso|sempre|nunca|chamo)\b/i;
const SIGNAL = /\b(?:remember that|remember:|from now on|going forward|in the future|next time|keep in mind|note that|for future reference|actually,? (?:it|we|i|the)|no,? (?:use|it's|it is|we)|lembre(?:-se)? (?:de )?que|daqui pra frente|da próxima vez)\b/i;

/** A question ("what is my name?", "how should I indent?") states nothing: only statements count. */
export function worthExtracting(messages: readonly Message[]): boolean {
  return messages.some((m) => {
    if (m.role !== "user" || m.meta?.kind === "tool_feedback") return false;
    const sentences = m.content.slice(0, 4000).split(/(?<=[.!?\n])\s+/);
    return sentences.some((s) => !/\?\s*$/.test(s) && (SIGNAL.test(s) || (FIRST_PERSON.test(s) && PREFERENCE.test(s))));
  });
}
