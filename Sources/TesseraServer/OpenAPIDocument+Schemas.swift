extension OpenAPIDocument {
    /// The task document of SPEC §1, the update, the status document of SPEC §3, the error body.
    static let schemas = #"""
components:
  securitySchemes:
    bearerAuth:
      type: http
      scheme: bearer
      description: Required on every route but /healthz when the server has a token (--api-token).
  schemas:
    TaskDocument:
      type: object
      description: A task (SPEC 1). Unknown fields are refused with their path.
      additionalProperties: false
      required: [inputs, outputs]
      properties:
        taskId:
          type: string
          description: Unique among live tasks; generated when absent.
          pattern: '^[A-Za-z0-9._-]{1,128}$'
        mode:
          type: string
          enum: [mix, relay]
          default: mix
          description: >-
            mix decodes, composites, mixes and encodes; relay pushes exactly one input to the
            outputs without re-encoding its video (no layout).
        pace:
          type: string
          enum: [realtime, asap]
          default: realtime
        maxDurationSeconds:
          type: number
          minimum: 0
          exclusiveMinimum: true
          description: The task ends there.
        idleTimeoutSeconds:
          type: number
          minimum: 0
          exclusiveMinimum: true
          default: 30
          description: A live task with no live input for this long stops by itself.
        callbackUrl:
          type: string
          format: uri
          maxLength: 2048
          pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#]+'
          description: >-
            An http or https URL (with a host, at most 2048 characters) that receives a JSON POST,
            a WebhookEvent, on every task, input and output state change (tessera serve only;
            tessera mix ignores it). Fixed for the task's life: an update cannot change it. Headers
            X-Tessera-Event, X-Tessera-Delivery (a UUID, the same on every retry of one event),
            X-Tessera-Timestamp, X-Tessera-Attempt, and, when the server has a webhook secret,
            X-Tessera-Signature = sha256= and the hex HMAC-SHA256 of the exact body bytes with that
            secret. A 2xx answer delivers an event; connection errors, timeouts (5 s), 5xx and 429
            are retried after 1, 2 and 4 s; other answers and redirects to another origin are not.
            Events of one task are posted one at a time, in sequence order; at most 256 wait per
            task, the oldest dropped beyond that (a gap in sequence shows it).
        inputs:
          type: array
          minItems: 1
          maxItems: 32
          items:
            $ref: '#/components/schemas/Input'
        encoder:
          $ref: '#/components/schemas/Encoder'
        layout:
          $ref: '#/components/schemas/Layout'
        audio:
          $ref: '#/components/schemas/AudioMix'
        outputs:
          type: array
          minItems: 1
          maxItems: 10
          items:
            $ref: '#/components/schemas/Output'
    TaskUpdate:
      type: object
      description: >-
        The fields to change; each one present replaces that field whole. encoder, mode and
        callbackUrl cannot change, nor can a task switch between audio-only and audio-video.
      additionalProperties: false
      properties:
        layout:
          $ref: '#/components/schemas/Layout'
        audio:
          $ref: '#/components/schemas/AudioMix'
        inputs:
          type: array
          minItems: 1
          maxItems: 32
          items:
            $ref: '#/components/schemas/Input'
        outputs:
          type: array
          minItems: 1
          maxItems: 10
          items:
            $ref: '#/components/schemas/Output'
        sequence:
          type: integer
          format: int64
          description: Must be greater than the last applied sequence (409 StaleSequence otherwise).
    Input:
      type: object
      additionalProperties: false
      required: [id]
      description: Exactly one of url or rtp.
      oneOf:
        - required: [url]
        - required: [rtp]
      properties:
        id:
          type: string
          minLength: 1
          description: Unique within the task.
        url:
          type: string
          minLength: 1
          description: 'A file path under the media root, file:, rtmp:, rtmps:, http:, https: or srt:.'
        rtp:
          $ref: '#/components/schemas/RTPInput'
        loop:
          type: boolean
          default: false
          description: Repeats a file input.
        startAtMs:
          type: integer
          minimum: 0
          maximum: 604800000
          default: 0
          description: Where the input starts on the output timeline.
        silenceTimeoutMs:
          type: integer
          minimum: 200
          maximum: 600000
          default: 2000
          description: Live, how long the input may send nothing before its region shows its placeholder.
    RTPInput:
      type: object
      additionalProperties: false
      description: Exactly one of sdp or allocate.
      oneOf:
        - required: [sdp]
        - required: [allocate]
      properties:
        sdp:
          type: string
          minLength: 1
          description: The SDP an SFU's RTP forwarder or ffmpeg -f rtp gives; its ports are bound.
        allocate:
          type: object
          additionalProperties: false
          description: Let the service choose the ports; the status reports them with the SDP to send to.
          minProperties: 1
          properties:
            video:
              type: string
              enum: [H264, VP8, VP9]
            audio:
              type: string
              enum: [opus, aac, pcmu, pcma]
    Encoder:
      type: object
      additionalProperties: false
      properties:
        video:
          $ref: '#/components/schemas/VideoEncoder'
        audio:
          $ref: '#/components/schemas/AudioEncoder'
    VideoEncoder:
      type: object
      description: Omit for an audio-only task.
      additionalProperties: false
      required: [width, height]
      properties:
        width:
          type: integer
          minimum: 16
          maximum: 3840
          multipleOf: 2
        height:
          type: integer
          minimum: 16
          maximum: 2160
          multipleOf: 2
        fps:
          type: integer
          minimum: 1
          maximum: 60
          default: 30
        bitrateKbps:
          type: integer
          minimum: 50
          maximum: 50000
          default: 2000
        gopSeconds:
          type: number
          minimum: 0
          exclusiveMinimum: true
          maximum: 20
          default: 2
        codec:
          type: string
          enum: [h264]
          default: h264
        preset:
          type: string
          enum: [ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo]
          default: veryfast
    AudioEncoder:
      type: object
      additionalProperties: false
      properties:
        sampleRate:
          type: integer
          enum: [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]
          default: 48000
        channels:
          type: integer
          enum: [1, 2]
          default: 2
        bitrateKbps:
          type: integer
          minimum: 16
          maximum: 512
          default: 128
        codec:
          type: string
          enum: [aac]
          default: aac
    Layout:
      type: object
      additionalProperties: false
      properties:
        backgroundColor:
          $ref: '#/components/schemas/Color'
        backgroundImage:
          type: string
          minLength: 1
          description: A PNG or JPEG under the media root, scaled to the canvas.
          pattern: '\.([Pp][Nn][Gg]|[Jj][Pp][Ee]?[Gg])$'
        template:
          type: string
          enum: [grid, float, screen-share, pk]
          description: Filled with the inputs in order; explicit regions win.
        regions:
          type: array
          maxItems: 64
          items:
            $ref: '#/components/schemas/Region'
    Region:
      type: object
      additionalProperties: false
      required: [x, y, width, height]
      description: >-
        Exactly one of input, image or text. Geometry in canvas pixels, or in fractions of the canvas
        with units relative; positions and sizes snap down to even pixels, and what falls outside
        the canvas is clipped. sourceCrop, cornerRadius and maskImage shape any kind of region
        (sourceCrop: not text); fontSize, color, font and align belong to text regions only.
      oneOf:
        - required: [input]
        - required: [image]
        - required: [text]
      properties:
        input:
          type: string
          minLength: 1
          description: An input id.
        image:
          type: string
          minLength: 1
          description: A PNG or JPEG under the media root; its alpha channel is respected.
          pattern: '\.([Pp][Nn][Gg]|[Jj][Pp][Ee]?[Gg])$'
        text:
          type: string
          maxLength: 1000
          description: >-
            Text drawn with FreeType, wrapped to the region's width (at spaces, and between CJK
            characters), lines from the top, clipped to the region; newlines break lines.
        fontSize:
          type: number
          minimum: 4
          maximum: 512
          default: 24
          description: Text regions. The font's size in canvas pixels.
        color:
          $ref: '#/components/schemas/Color'
        font:
          type: string
          minLength: 1
          description: >-
            Text regions. A TrueType / OpenType font file under the media root (a CJK font for
            CJK text); default DejaVu Sans, which the service ships.
          pattern: '\.([Tt][Tt][Ff]|[Oo][Tt][Ff]|[Tt][Tt][Cc])$'
        align:
          type: string
          enum: [left, center, right]
          default: left
          description: Text regions. Where each line sits in the region's width.
        sourceCrop:
          type: object
          additionalProperties: false
          required: [x, y, width, height]
          description: >-
            The part of the source picture shown, in fractions of it, before the render mode (which
            then works on the cropped size); x + width and y + height at most 1.
          properties:
            x:
              type: number
              minimum: 0
              maximum: 1
              exclusiveMaximum: true
            y:
              type: number
              minimum: 0
              maximum: 1
              exclusiveMaximum: true
            width:
              type: number
              minimum: 0.05
              maximum: 1
            height:
              type: number
              minimum: 0.05
              maximum: 1
        cornerRadius:
          type: number
          minimum: 0
          maximum: 100000
          default: 0
          description: Rounded corners in canvas pixels (anti-aliased); the corners show what lies below.
        maskImage:
          type: string
          minLength: 1
          description: A PNG under the media root whose alpha, scaled to the region, multiplies the region's alpha.
          pattern: '\.[Pp][Nn][Gg]$'
        units:
          type: string
          enum: [pixels, relative]
          default: pixels
        x:
          type: number
        y:
          type: number
        width:
          type: number
          minimum: 0
          exclusiveMinimum: true
        height:
          type: number
          minimum: 0
          exclusiveMinimum: true
        zOrder:
          type: integer
          default: 0
          description: Higher draws on top; ties in array order.
        alpha:
          type: number
          minimum: 0
          maximum: 1
          default: 1
        renderMode:
          type: string
          enum: [crop, fit, stretch]
          default: crop
        backgroundColor:
          $ref: '#/components/schemas/Color'
        placeholderImage:
          type: string
          minLength: 1
          description: Drawn while the input has no video.
          pattern: '\.([Pp][Nn][Gg]|[Jj][Pp][Ee]?[Gg])$'
    AudioMix:
      type: object
      additionalProperties: false
      properties:
        inputs:
          type: array
          description: The input ids mixed; all inputs that have audio when absent.
          items:
            type: string
        volumes:
          type: object
          description: Percent per input id.
          additionalProperties:
            type: number
            minimum: 0
            maximum: 200
    Output:
      type: object
      additionalProperties: false
      required: [url]
      properties:
        url:
          type: string
          minLength: 1
          description: 'rtmp:, rtmps:, srt:, or a file path (.mp4, .flv, .mkv, .ts) under the output directory.'
    Color:
      type: string
      pattern: '^#([0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$'
      description: '#RRGGBB or #RRGGBBAA'
    TaskList:
      type: object
      required: [tasks]
      properties:
        tasks:
          type: array
          items:
            $ref: '#/components/schemas/TaskStatus'
    TaskStatus:
      type: object
      required: [taskId, state, startedAt, uptimeSeconds, frames, fps, bitrateKbps, lateFrames, inputs, outputs]
      properties:
        taskId:
          type: string
        state:
          type: string
          enum: [starting, running, stopping, stopped, failed]
        reason:
          type: string
          description: Why the task failed or stopped.
        startedAt:
          type: string
          format: date-time
        uptimeSeconds:
          type: number
          minimum: 0
        frames:
          type: integer
          format: int64
          minimum: 0
          description: Output frames encoded (audio frames for an audio-only task).
        fps:
          type: number
          minimum: 0
        bitrateKbps:
          type: number
          minimum: 0
        lateFrames:
          type: integer
          format: int64
          minimum: 0
          description: Output frames that left after their wall-clock time.
        sequence:
          type: integer
          format: int64
          description: The last applied update sequence.
        workerPid:
          type: integer
          format: int32
          description: The worker process running the task, while one does.
        node:
          type: string
          description: The node of the cluster that runs the task.
        inputs:
          type: array
          items:
            $ref: '#/components/schemas/InputStatus'
        outputs:
          type: array
          items:
            $ref: '#/components/schemas/OutputStatus'
    InputStatus:
      type: object
      required: [id, state, frames, drops]
      properties:
        id:
          type: string
        state:
          type: string
          enum: [waiting, live, ended, failed]
        frames:
          type: integer
          format: int64
          minimum: 0
        drops:
          type: integer
          format: int64
          minimum: 0
        lastError:
          type: string
        rtp:
          type: object
          required: [sdp]
          description: The ports the service allocated and the SDP to send to.
          properties:
            videoPort:
              type: integer
              minimum: 1
              maximum: 65535
            audioPort:
              type: integer
              minimum: 1
              maximum: 65535
            sdp:
              type: string
        rotation:
          type: integer
          enum: [0, 90, 180, 270]
          description: Clockwise degrees the newest picture is turned by to be shown upright (a file's display matrix, an RTP sender's video orientation extension); absent before the first picture.
        flip:
          type: boolean
          description: Present (true) when that picture is also mirrored left to right before the turn.
        packets:
          type: object
          description: What happened to the packets of an RTP input.
          properties:
            received:
              type: integer
              format: int64
              minimum: 0
            lost:
              type: integer
              format: int64
              minimum: 0
            reordered:
              type: integer
              format: int64
              minimum: 0
            late:
              type: integer
              format: int64
              minimum: 0
            malformed:
              type: integer
              format: int64
              minimum: 0
              description: Datagrams that were not usable RTP (malformed, another payload type, an unknown SSRC, truncated).
            senderRestarts:
              type: integer
              format: int64
              minimum: 0
              description: Times a new SSRC or renumbered stream was taken up.
            concealedMilliseconds:
              type: integer
              format: int64
              minimum: 0
              description: Audio concealed over lost packets.
    OutputStatus:
      type: object
      required: [url, state, bytes, reconnects]
      properties:
        url:
          type: string
          description: Redacted, stream key and query hidden.
        state:
          type: string
          enum: [connecting, live, reconnecting, failed]
        bytes:
          type: integer
          format: int64
          minimum: 0
        reconnects:
          type: integer
          format: int64
          minimum: 0
        lastError:
          type: string
        files:
          type: array
          description: >-
            A file output's files, oldest first. A restarted task (worker crash, node restart,
            move to another node) continues in a new file beside the first (room42.mp4,
            room42.1.mp4, ...); each is playable on its own.
          items:
            type: string
    WebhookEvent:
      type: object
      description: >-
        The body POSTed to a task's callbackUrl. Exactly one of task, input, output is present,
        as event names. sequence counts from 1 per task and grows by one per event.
      required: [event, taskId, sequence, timestamp, status]
      properties:
        event:
          type: string
          enum: [task.state, input.state, input.added, input.removed, input.rtp, output.state, output.added, output.removed]
        taskId:
          type: string
        sequence:
          type: integer
          format: int64
          minimum: 1
        timestamp:
          type: string
          format: date-time
          description: When the change was seen (UTC, milliseconds); X-Tessera-Timestamp repeats it.
        task:
          type: object
          required: [state]
          description: previousState is absent on the task's first event (starting).
          properties:
            state:
              type: string
              enum: [starting, running, stopping, stopped, failed]
            previousState:
              type: string
              enum: [starting, running, stopping, stopped, failed]
            reason:
              type: string
        input:
          type: object
          required: [id]
          description: >-
            No previousState on input.added, no state on input.removed. input.rtp carries rtp: the
            ports and SDP of an allocated RTP input on the node that now runs the task.
          properties:
            id:
              type: string
            state:
              type: string
              enum: [waiting, live, ended, failed]
            previousState:
              type: string
              enum: [waiting, live, ended, failed]
            lastError:
              type: string
            rtp:
              type: object
              required: [sdp]
              properties:
                videoPort:
                  type: integer
                audioPort:
                  type: integer
                sdp:
                  type: string
        output:
          type: object
          required: [url]
          description: No previousState on output.added, no state on output.removed.
          properties:
            url:
              type: string
              description: Redacted, as in the status.
            state:
              type: string
              enum: [connecting, live, reconnecting, failed]
            previousState:
              type: string
              enum: [connecting, live, reconnecting, failed]
            lastError:
              type: string
        status:
          $ref: '#/components/schemas/TaskStatus'
    Error:
      type: object
      required: [error]
      properties:
        error:
          type: object
          required: [code, message]
          properties:
            code:
              type: string
              description: >-
                InvalidTask, InvalidUpdate, BadRequest (400), Unauthorized (401), NotFound,
                TaskNotFound (404), MethodNotAllowed (405), TaskExists, InvalidState,
                StaleSequence (409), PayloadTooLarge (413), TooManyTasks (429), InternalError
                (500), ShuttingDown (503).
            message:
              type: string
            path:
              type: string
              description: The field at fault, as layout.regions[2].width.
            issues:
              type: array
              description: Every problem found, when there were several.
              items:
                type: object
                required: [path, message]
                properties:
                  path:
                    type: string
                  message:
                    type: string

"""#
}
