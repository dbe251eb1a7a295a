extension OpenAPIDocument {
    static let paths = #"""
paths:
  /v1/tasks:
    post:
      tags: [tasks]
      operationId: createTask
      summary: Start a task
      description: >-
        Starts a task from a task document. An existing taskId is 409 even when the body is
        identical. The server's limits apply: more inputs, regions or outputs than it allows, or a
        maxDurationSeconds over its maximum, is 400 naming the field (a task without
        maxDurationSeconds gets the maximum); too many running tasks is 429; a body over the size
        limit is 413. File paths must stay under the media root (outputs: the output directory),
        local playlists are refused, and hosts on the server's deny-list are 400. A rejected
        request starts nothing.
      requestBody:
        required: true
        content:
          application/json:
            schema:
              $ref: '#/components/schemas/TaskDocument'
      responses:
        "201":
          description: The task started; its status.
          headers:
            Location:
              description: The task's URL.
              schema:
                type: string
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/TaskStatus'
          links:
            GetTask:
              operationId: getTask
              parameters:
                taskId: '$response.body#/taskId'
            UpdateTask:
              operationId: updateTask
              parameters:
                taskId: '$response.body#/taskId'
            StopTask:
              operationId: stopTask
              parameters:
                taskId: '$response.body#/taskId'
            GetTaskSnapshot:
              operationId: getTaskSnapshot
              parameters:
                taskId: '$response.body#/taskId'
        "400":
          $ref: '#/components/responses/InvalidTask'
        "401":
          $ref: '#/components/responses/Unauthorized'
        "409":
          $ref: '#/components/responses/Conflict'
        "413":
          $ref: '#/components/responses/PayloadTooLarge'
        "429":
          $ref: '#/components/responses/TooManyTasks'
        "500":
          $ref: '#/components/responses/InternalError'
        "503":
          $ref: '#/components/responses/ShuttingDown'
    get:
      tags: [tasks]
      operationId: listTasks
      summary: List tasks
      description: Every task the server knows, finished ones included until they are forgotten.
      responses:
        "200":
          description: The tasks.
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/TaskList'
        "401":
          $ref: '#/components/responses/Unauthorized'
        "500":
          $ref: '#/components/responses/InternalError'
  /v1/tasks/{taskId}:
    parameters:
      - $ref: '#/components/parameters/TaskId'
    get:
      tags: [tasks]
      operationId: getTask
      summary: A task's status
      responses:
        "200":
          description: The task's status.
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/TaskStatus'
        "401":
          $ref: '#/components/responses/Unauthorized'
        "404":
          $ref: '#/components/responses/TaskNotFound'
        "500":
          $ref: '#/components/responses/InternalError'
    patch:
      tags: [tasks]
      operationId: updateTask
      summary: Update a running task
      description: >-
        Each field present replaces that field whole (outputs is the complete new list); inputs
        are matched by id and outputs by url, and unchanged ones keep running untouched. encoder
        and mode cannot change (400). A sequence not greater than the last applied one is 409.
      requestBody:
        required: true
        content:
          application/json:
            schema:
              $ref: '#/components/schemas/TaskUpdate'
      responses:
        "200":
          description: The update is applied; the task's status.
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/TaskStatus'
        "400":
          $ref: '#/components/responses/InvalidUpdate'
        "401":
          $ref: '#/components/responses/Unauthorized'
        "404":
          $ref: '#/components/responses/TaskNotFound'
        "409":
          $ref: '#/components/responses/Conflict'
        "413":
          $ref: '#/components/responses/PayloadTooLarge'
        "500":
          $ref: '#/components/responses/InternalError'
        "503":
          $ref: '#/components/responses/ShuttingDown'
    delete:
      tags: [tasks]
      operationId: stopTask
      summary: Stop a task
      description: Stops the task (encoders flushed, trailers written) and returns its final status.
      responses:
        "200":
          description: The task's final status.
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/TaskStatus'
        "401":
          $ref: '#/components/responses/Unauthorized'
        "404":
          $ref: '#/components/responses/TaskNotFound'
        "409":
          $ref: '#/components/responses/Conflict'
        "500":
          $ref: '#/components/responses/InternalError'
  /v1/tasks/{taskId}/snapshot.png:
    parameters:
      - $ref: '#/components/parameters/TaskId'
    get:
      tags: [tasks]
      operationId: getTaskSnapshot
      summary: The current composite frame
      responses:
        "200":
          description: The frame as PNG.
          content:
            image/png:
              schema:
                type: string
                format: binary
        "401":
          $ref: '#/components/responses/Unauthorized'
        "404":
          $ref: '#/components/responses/TaskNotFound'
        "409":
          $ref: '#/components/responses/Conflict'
        "500":
          $ref: '#/components/responses/InternalError'
  /healthz:
    get:
      tags: [operations]
      operationId: healthz
      summary: Liveness
      description: Needs no token.
      security: []
      responses:
        "200":
          description: The server runs.
          content:
            application/json:
              schema:
                type: object
                required: [status]
                properties:
                  status:
                    type: string
                    enum: [ok]
  /readyz:
    get:
      tags: [operations]
      operationId: readyz
      summary: Readiness
      description: >-
        Needs no token. 200 while this node takes API traffic; 503 while it drains (SIGTERM in a
        cluster) or cannot reach its task store.
      security: []
      responses:
        "200":
          description: The node takes traffic.
          content:
            application/json:
              schema:
                type: object
                required: [status]
                properties:
                  status:
                    type: string
                    enum: [ready]
        "503":
          description: Draining, or the task store cannot be reached.
          content:
            application/json:
              schema:
                type: object
                required: [status]
                properties:
                  status:
                    type: string
                    enum: [not ready]
  /metrics:
    get:
      tags: [operations]
      operationId: metrics
      summary: Prometheus metrics
      description: >-
        Prometheus text exposition; every name starts with tessera_ (tasks, inputs and outputs
        by state, frames encoded, late frames, output bytes, reconnects, input drops, HTTP
        requests).
      responses:
        "200":
          description: The metrics.
          content:
            text/plain:
              schema:
                type: string
        "401":
          $ref: '#/components/responses/Unauthorized'
        "500":
          $ref: '#/components/responses/InternalError'
  /openapi.yaml:
    get:
      tags: [operations]
      operationId: openapi
      summary: This document
      responses:
        "200":
          description: The OpenAPI document.
          content:
            application/yaml:
              schema:
                type: string
        "401":
          $ref: '#/components/responses/Unauthorized'

"""#
}
