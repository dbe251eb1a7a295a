import TesseraComposition
import TesseraRTP

/// An input whose media is open (a container with its decoders, or bound RTP ports), ready to
/// be read on the input's own thread.
public protocol OpenedInput: AnyObject {
    var description: MediaSource.Description { get }
    /// Whether media comes in at its own pace (RTP pushed by a sender): a live reader must not
    /// be held back, only files and pull URLs that can be read faster than real time.
    var arrivesInRealTime: Bool { get }
    /// A reader that decodes this input and hands pictures and audio (at the output's sample rate
    /// and channel count) to a `MediaSink`.
    func makeReader(loop: Bool, outputSampleRate: Int, outputChannels: Int, pool: YUVImagePool?) -> InputReader
}

/// Reads an opened input until it ends, fails, or the sink asks to stop.
public protocol InputReader: AnyObject {
    func run(into sink: MediaSink) throws
    /// Pictures or audio frames lost inside the input (corrupt data, lost packets).
    var decodeErrors: Int { get }
    /// Packet counters of a network input that has them (RTP), for its status; nil otherwise.
    var packetCounters: PacketCounters? { get }
    /// RTCP sent, medium states and the newest refusal of an RTP input; nil otherwise.
    var receptionStatus: RTPReceptionStatus? { get }
}

extension InputReader {
    public var receptionStatus: RTPReceptionStatus? { nil }
}

extension MediaSource: OpenedInput {
    public var arrivesInRealTime: Bool { false }

    public func makeReader(loop: Bool, outputSampleRate: Int, outputChannels: Int, pool: YUVImagePool?) -> InputReader {
        MediaReader(source: self, loop: loop, outputSampleRate: outputSampleRate, outputChannels: outputChannels, pool: pool)
    }
}

extension MediaReader: InputReader {
    public var packetCounters: PacketCounters? { nil }
}
