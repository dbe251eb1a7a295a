/// Decides, packet by packet, what one participant's recording does with the media it is handed:
/// where a file starts, where the next one starts, and what is left out. Pure; the recorder
/// (`ParticipantRecorder`) carries out each decision.
///
/// - A file starts at a video keyframe (an input without video: at its first audio packet); audio
///   before it, or placed before the file's start, is left out, so the file's first packet is its
///   offset on the task clock.
/// - A new sender (SSRC) or a new picture size is another connection (a rejoin): the file ends and
///   the next starts at that sender's first keyframe; what comes from it before is left out.
/// - Paused, nothing is written; on resume the file goes on at the next video keyframe (a gap in
///   time, never a broken picture).
/// - Loss is not seen here: the packets that do come keep their times, so it is a gap in time.
public struct ParticipantRecordingPlan: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case video, audio }

    /// What the plan needs to know of one packet.
    public struct Packet: Sendable, Equatable {
        public var kind: Kind
        public var isKeyframe: Bool
        /// The sender (RTP SSRC); nil when the input has none (files, pull URLs).
        public var sender: UInt32?
        /// Video: the picture size (0 when not known).
        public var width: Int
        public var height: Int
        /// On the task clock.
        public var ptsMicroseconds: Int64

        public init(kind: Kind, isKeyframe: Bool, sender: UInt32? = nil, width: Int = 0, height: Int = 0, ptsMicroseconds: Int64) {
            self.kind = kind; self.isKeyframe = isKeyframe; self.sender = sender
            self.width = width; self.height = height; self.ptsMicroseconds = ptsMicroseconds
        }
    }

    public enum Action: Sendable, Equatable {
        case drop
        case write
        /// No file is open: open one (named by the next free name), then write.
        case open
        /// Finish the open file, open the next, then write.
        case reopen
    }

    public let hasVideo: Bool
    public private(set) var isOpen = false
    /// Task-clock time of the open file's first packet.
    public private(set) var fileStartMicroseconds: Int64?
    public private(set) var paused = false
    private var videoSender: UInt32?
    private var audioSender: UInt32?
    private var width = 0, height = 0
    /// Video: nothing but a keyframe goes on (after a resume, or a new sender's first frames).
    private var awaitingKeyframe = false

    public init(hasVideo: Bool) { self.hasVideo = hasVideo }

    public mutating func setPaused(_ paused: Bool) {
        if self.paused && !paused && isOpen { awaitingKeyframe = hasVideo }
        self.paused = paused
    }

    /// The open file was finished (the connection ended): the next packet that may start a file does.
    public mutating func closed() {
        isOpen = false
        fileStartMicroseconds = nil
        videoSender = nil; audioSender = nil
        width = 0; height = 0
        awaitingKeyframe = false
    }

    public mutating func decide(_ packet: Packet) -> Action {
        if paused { return .drop }
        let startsFile = hasVideo ? packet.kind == .video && packet.isKeyframe : packet.kind == .audio
        guard isOpen else {
            guard startsFile else { return .drop }
            start(at: packet)
            return .open
        }
        switch packet.kind {
        case .video:
            let newSender = packet.sender != nil && videoSender != nil && packet.sender != videoSender
            let newSize = packet.width > 0 && width > 0 && (packet.width != width || packet.height != height)
            if newSender || newSize {
                guard packet.isKeyframe else {
                    awaitingKeyframe = true
                    return .drop
                }
                start(at: packet)
                return .reopen
            }
            if awaitingKeyframe {
                guard packet.isKeyframe else { return .drop }
                awaitingKeyframe = false
            }
            if width == 0 { (width, height) = (packet.width, packet.height) }
            return .write
        case .audio:
            if !hasVideo, let sender = packet.sender, let audioSender, sender != audioSender {
                start(at: packet)
                return .reopen
            }
            if awaitingKeyframe { return .drop }
            if let start = fileStartMicroseconds, packet.ptsMicroseconds < start { return .drop }
            if audioSender == nil { audioSender = packet.sender }
            return .write
        }
    }

    private mutating func start(at packet: Packet) {
        isOpen = true
        fileStartMicroseconds = packet.ptsMicroseconds
        awaitingKeyframe = false
        switch packet.kind {
        case .video:
            videoSender = packet.sender
            audioSender = nil
            (width, height) = (packet.width, packet.height)
        case .audio:
            audioSender = packet.sender
        }
    }
}
