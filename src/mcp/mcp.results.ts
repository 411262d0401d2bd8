import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../errors.ts';

/** How a tool call that fails is answered: a tool error the agent reads (`isError: true`). */
export interface ToolFailure {
  refuse(message: string): CallToolResult;
  /** where failures that are not the caller's are logged, with the request's id */
  log: FastifyBaseLogger;
}

export const toolFailure = (log: FastifyBaseLogger): ToolFailure => ({
  refuse: (message) => ({ content: [{ type: 'text', text: message }], isError: true }),
  log,
});

/** A result as JSON text, and the same as structured content. */
export function jsonResult(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/**
 * Runs a tool's work: what the service refuses (AppError: not found, forbidden, invalid, rate limited)
 * is a tool error with the service's message and status; anything else is logged and answered with a
 * message that shows nothing of the server.
 */
export async function toolCall(
  failed: ToolFailure,
  work: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError && error.status < 500) return refusalOf(error);
    failed.log.warn({ err: error }, 'an MCP tool call failed');
    return failed.refuse('The server could not answer this call. Try again in a moment.');
  }
}

/** What a service refused, as a tool error: its message, its status, and which fields were wrong. */
export function refusalOf(error: AppError): CallToolResult {
  const details = (error.details ?? []).map((d) => ` ${d.field}: ${d.message}.`).join('');
  return {
    content: [{ type: 'text', text: `${error.message} (${error.status})${details}` }],
    isError: true,
  };
}
