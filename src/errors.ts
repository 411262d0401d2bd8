/** Every error the service reports on purpose. One error handler (src/http/error-handler.ts) writes the body. */
export interface FieldProblem {
  field: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: FieldProblem[],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends AppError {
  constructor(message: string, details?: FieldProblem[]) {
    super(400, message, details);
  }
}

/** A single invalid field, reported with details like schema validation errors are. */
export class InvalidFieldError extends BadRequestError {
  constructor(field: string, message: string) {
    super(`${field} ${message}`, [{ field, message }]);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(403, message);
  }
}

export class NotFoundError extends AppError {
  constructor(message: string) {
    super(404, message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, message);
  }
}

/** `If-Match` held a tag that is not current: the write is refused with 412 and the current tag. */
export class PreconditionFailedError extends AppError {
  constructor(readonly currentTag: string) {
    super(
      412,
      'The resource changed since the tag given in If-Match: read it again, then retry with its ETag.',
    );
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message: string) {
    super(413, message);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(type: string, supported = 'application/json') {
    super(415, `Unsupported content-type '${type}'. Supported content-type is '${supported}'.`);
  }
}

/** The database (or another service Quire depends on) cannot answer now; the client may retry. */
export class ServiceUnavailableError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(503, message);
  }
}

export class TooManyRequestsError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, message);
  }
}

/**
 * Raised by repositories when a unique constraint is violated, whatever the dialect.
 * Services either turn it into a ConflictError or retry with another slug.
 */
export class UniqueViolationError extends ConflictError {
  constructor(readonly constraint: string | null) {
    super('A resource with the same unique value already exists.');
  }
}

/** Well-formed, but it cannot be processed as asked (an Idempotency-Key reused for another request). */
export class UnprocessableEntityError extends AppError {
  constructor(message: string) {
    super(422, message);
  }
}

export class PlanUpgradeRequiredError extends BadRequestError {
  constructor(feature: string) {
    super(`${feature} is available on the enterprise plan only. Upgrade the project's plan to 'enterprise'.`);
  }
}
