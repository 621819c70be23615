/** Importing this module registers every built-in provider. */
import "./ollama.ts";
import "./openai.ts";
import "./anthropic.ts";
import "./gemini.ts";
import "./openai-compatible.ts";
import "./copilot.ts";
