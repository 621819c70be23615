/** Importing this module registers every built-in provider. */
import "./ollama.ts";
