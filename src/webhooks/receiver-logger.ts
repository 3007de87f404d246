/** The part of a pino logger the receiver uses. Fields never carry headers, secrets or bodies. */
export interface ReceiverLogger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}
