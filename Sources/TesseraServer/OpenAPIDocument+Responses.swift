extension OpenAPIDocument {
    static let parameters = #"""
  parameters:
    TaskId:
      name: taskId
      in: path
      required: true
      schema:
        type: string
        pattern: '^[A-Za-z0-9._-]{1,128}$'

"""#

    static let responses = #"""
  responses:
    InvalidTask:
      description: InvalidTask, the field at fault in path (and every problem in issues).
      content:
        application/json:
          schema:
            $ref: '#/components/schemas/Error'
    InvalidUpdate:
      description: InvalidUpdate, the field at fault in path.
      content:
        application/json:
          schema:
            $ref: '#/components/schemas/Error'
    Unauthorized:
      description: Unauthorized, missing or wrong bearer token.
      headers:
        WWW-Authenticate:
          schema:
            type: string
      content:
        application/json:
          schema:
            $ref: '#/components/schemas/Error'
    TaskNotFound:
      description: TaskNotFound.
      content:
        application/json:
          schema:
            $ref: '#/components/schemas/Error'
    Conflict:
      description: TaskExists, InvalidState or StaleSequence.
      content:
        application/json:
          schema:
            $ref: '#/components/schemas/Error'
    PayloadTooLarge:
      description: PayloadTooLarge, the body is over the server's limit.
      content:
        application/json:
          schema:
            $ref: '#/components/schemas/Error'
    TooManyTasks:
      description: TooManyTasks; retry after Retry-After seconds.
      headers:
        Retry-After:
          schema:
            type: integer
      content:
        application/json:
          schema:
            $ref: '#/components/schemas/Error'
    ShuttingDown:
      description: ShuttingDown, the server refuses new work.
      content:
        application/json:
          schema:
            $ref: '#/components/schemas/Error'
    InternalError:
      description: InternalError, details in the server log.
      content:
        application/json:
          schema:
            $ref: '#/components/schemas/Error'

"""#
}
