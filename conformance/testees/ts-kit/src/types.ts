// types.ts — the wire format the testee protocol carries, as TypeScript types
// (conformance/SPEC.md, /conformance/PROTOCOL.md; Microsoft.Extensions.AI and Agent Framework JSON:
// camelCase members, contents discriminated by "$type"). Unknown members are allowed everywhere:
// a conformant merger keeps them (X1, X2).

/** A content of an update or a message. `$type` is "text", "reasoning", "functionCall",
 * "functionResult", "usage", "data", "uri", "error", ... or one this kit has never heard of. */
export interface AIContent {
  $type?: string;
  text?: string;
  protectedData?: string;
  annotations?: unknown[];
  callId?: string;
  name?: string;
  arguments?: Record<string, unknown>;
  result?: unknown;
  details?: UsageDetails;
  additionalProperties?: Record<string, unknown>;
  [member: string]: unknown;
}

/** Token counts; .NET writes counters as numbers (sometimes as strings), additionalCounts by name. */
export interface UsageDetails {
  inputTokenCount?: number | string;
  outputTokenCount?: number | string;
  totalTokenCount?: number | string;
  additionalCounts?: Record<string, number>;
  [member: string]: unknown;
}

export type ChatRole = "user" | "assistant" | "system" | "tool" | string;

/** One streamed AgentResponseUpdate (ChatResponseUpdate), in arrival order. */
export interface AgentResponseUpdate {
  responseId?: string | null;
  messageId?: string | null;
  role?: ChatRole | null;
  authorName?: string | null;
  agentId?: string | null;
  createdAt?: string | null;
  finishReason?: string | null;
  continuationToken?: string | null;
  conversationId?: string | null;
  modelId?: string | null;
  contents?: AIContent[] | null;
  additionalProperties?: Record<string, unknown> | null;
  [member: string]: unknown;
}

/** One message of the merged response. */
export interface ChatMessage {
  role: ChatRole;
  messageId?: string;
  authorName?: string;
  agentId?: string;
  createdAt?: string;
  contents: AIContent[];
  additionalProperties?: Record<string, unknown>;
  [member: string]: unknown;
}

/** The merged AgentResponse (SPEC W7 shape). */
export interface AgentResponse {
  responseId?: string;
  agentId?: string;
  createdAt?: string;
  finishReason?: string;
  continuationToken?: string;
  conversationId?: string;
  modelId?: string;
  usage?: UsageDetails;
  messages: ChatMessage[];
  [member: string]: unknown;
}

/** A merger: one turn's updates (and the host's turn id, if it named one) to one response. */
export type Merge = (updates: AgentResponseUpdate[], responseId: string | undefined) => AgentResponse;

/** The protocol's requests this kit answers (others get `unsupported`). */
export type Request =
  | { id: string; op: "hello" }
  | { id: string; op: "merge"; updates: AgentResponseUpdate[]; responseId?: string }
  | { id: string; op: string; [member: string]: unknown };

export type Answer =
  | { id: string; hello: { name: string; version: string; ops: string[] } }
  | { id: string; response: AgentResponse }
  | { id: string; error: string }
  | { id: string; unsupported: true };
