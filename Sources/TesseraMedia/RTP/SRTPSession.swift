import CSRTP
import TesseraRTP

/// Which way an `SRTPSession`'s packets go: received (unprotect) or sent (protect).
public enum SRTPDirection: Sendable {
    case inbound, outbound
}

/// Why libsrtp refused a packet or a session. Each case is one reason a receiver counts apart;
/// `description` reads as a log line.
public enum SRTPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The tag did not match: a wrong key, a tampered or truncated packet, or a rollover counter
    /// that differs from the sender's (see `SRTPSession`).
    case authenticationFailed
    /// A packet index this session has already accepted (a duplicate or a replay).
    case replayed
    /// A packet index older than the replay window (`SRTPSession.replayWindowPackets`).
    case tooOld
    /// A packet too short for its header and tag, an SRTCP packet not encrypted, a length out
    /// of range, or a buffer without room for the trailer.
    case badParameter(String)
    /// Any other libsrtp status, with its number (`srtp_err_status_t`) and what was being done.
    case failed(String, status: Int32)

    public var description: String {
        switch self {
        case .authenticationFailed: return "SRTP authentication failed"
        case .replayed: return "SRTP replay: packet already received"
        case .tooOld: return "SRTP replay: packet older than the replay window"
        case .badParameter(let what): return "SRTP bad parameter: \(what)"
        case .failed(let what, let status): return "SRTP \(what) failed (libsrtp status \(status))"
        }
    }

    /// The error a libsrtp status means; nil for `srtp_err_status_ok`.
    init?(_ status: srtp_err_status_t, _ what: @autoclosure () -> String) {
        switch status {
        case srtp_err_status_ok: return nil
        case srtp_err_status_auth_fail: self = .authenticationFailed
        case srtp_err_status_replay_fail: self = .replayed
        case srtp_err_status_replay_old: self = .tooOld
        case srtp_err_status_bad_param: self = .badParameter(what())
        case srtp_err_status_cant_check:
            self = .badParameter("\(what()): the SRTCP E flag (encrypted) does not match the suite")
        default: self = .failed(what(), status: Int32(bitPattern: status.rawValue))
        }
    }
}

/// libsrtp is initialised once per process, by whichever session is made first: a global `let`
/// is initialised lazily under `swift_once`, so concurrent first sessions on two input threads
/// call `srtp_init` exactly once. It is never shut down (sessions may live until exit).
private let libraryStatus: srtp_err_status_t = srtp_init()

/// One direction of SRTP for one medium (RFC 3711 / RFC 7714): an owned libsrtp session keyed
/// with the SDES master key and salt, that protects or unprotects packets in the caller's
/// buffer. Make one per input medium (inbound) or per sender (outbound); RTP and RTCP of that
/// medium share it, as they share the master key.
///
/// Not `Sendable`: a session keeps replay state and is used from its input's own thread only.
///
/// libsrtp's behaviour that callers see:
/// - **Any SSRC.** The session is keyed for `ssrc_any_inbound` / `ssrc_any_outbound`: libsrtp
///   keeps a template and, on the first packet of an SSRC it has not seen, checks that packet
///   with the template's keys and only after it authenticates adds a stream for the SSRC. A
///   sender that restarts with a new SSRC, or an `rtx` stream, needs nothing; a forged packet
///   adds nothing. Each authenticated SSRC keeps a stream (about a kilobyte) until
///   `forgetSender(ssrc:)` or the end of the session.
/// - **Rollover counter.** A new stream starts its 48-bit packet index at the first packet's
///   sequence number with a rollover count of 0. A sender whose sequence numbers have already
///   wrapped before this session saw it (joined mid-stream after 65,536 packets of one SSRC)
///   fails authentication on every packet until it sends a new SSRC.
/// - **Same SSRC, restarted sequence.** A sender that restarts with the same SSRC and a lower
///   sequence number is refused as `.tooOld` / `.replayed` (or, after 2¹⁵ behind, fails
///   authentication with a guessed rollover): call `forgetSender(ssrc:)` when the receiver adopts
///   a restarted sender, so its next packet starts a new stream.
/// - **Replay window.** `replayWindowPackets` indices behind the highest one are accepted once
///   each; a retransmission (NACK without `rtx`) that arrives later is `.tooOld`.
/// - **FFmpeg's short SRTCP tags.** With AES_CM_128_HMAC_SHA1_32, SRTCP keeps an 80-bit tag
///   (RFC 5764 §4.1.2; libsrtp, Janus and browsers do so), but FFmpeg's own SRTP
///   (libavformat/srtp.c) uses the 32-bit RTP tag for SRTCP too. An inbound _32 session therefore
///   keeps a second libsrtp session with a 32-bit SRTCP tag and tries it only when the 80-bit
///   check fails, so sender reports from the `ffmpeg` CLI are not lost.
public final class SRTPSession {
    /// Bytes `protectRTP` may write after the packet: libsrtp assumes `SRTP_MAX_TRAILER_LEN`
    /// (16-byte tag + 128-byte MKI = 144), whatever the suite's tag (10, 4 or 16 bytes) is.
    public static let rtpTrailerRoom = Int(tessera_srtp_max_trailer_len())
    /// Bytes `protectRTCP` may write after the packet: `SRTP_MAX_TRAILER_LEN` + 4 for the SRTCP
    /// index (E flag + 31-bit index) = 148.
    public static let rtcpTrailerRoom = rtpTrailerRoom + 4

    /// libsrtp's default replay window is 128 packets; a receiver that asks for retransmissions
    /// (NACK) needs the window to cover a keyframe burst plus a round trip, so Tessera's default
    /// is 1,024 (a 3 Mb/s video sends about 300 packets a second). libsrtp allows 64 to 32,767.
    public static let defaultReplayWindowPackets = 1024

    public let suite: SRTPSuite
    public let direction: SRTPDirection
    public let replayWindowPackets: Int
    /// The libsrtp session, owned: made in `init`, freed in `deinit`, never handed out.
    private let context: srtp_t
    /// Inbound AES_CM_128_HMAC_SHA1_32 only: the same key with a 32-bit SRTCP tag, for FFmpeg's
    /// SRTCP (see the type's notes). Owned like `context`.
    private let shortTagRTCPContext: srtp_t?
    /// Whether this sender's SRTCP last passed with a 32-bit tag (`shortTagRTCPContext`).
    private var rtcpTagsAreShort = false

    /// A session for `suite`, keyed with the master key followed by the master salt
    /// (`suite.masterKeyAndSaltLength` bytes).
    public init(suite: SRTPSuite, masterKeyAndSalt: [UInt8], direction: SRTPDirection,
                replayWindowPackets: Int = SRTPSession.defaultReplayWindowPackets) throws(SRTPError) {
        guard masterKeyAndSalt.count == suite.masterKeyAndSaltLength else {
            throw .badParameter("\(suite.rawValue) needs \(suite.masterKeyAndSaltLength) bytes of key and salt, "
                                + "got \(masterKeyAndSalt.count)")
        }
        guard (64...0x7FFF).contains(replayWindowPackets) else {
            throw .badParameter("replay window \(replayWindowPackets) is outside 64...32767 packets")
        }
        if let error = SRTPError(libraryStatus, "initialising libsrtp") { throw error }
        let ssrc = srtp_ssrc_t(type: direction == .inbound ? ssrc_any_inbound : ssrc_any_outbound, value: 0)
        context = try Self.makeContext(suite, ssrc: ssrc, key: masterKeyAndSalt, replayWindowPackets: replayWindowPackets)
        if suite == .aesCM128HMACSHA1_32 && direction == .inbound {
            do {
                shortTagRTCPContext = try Self.makeContext(suite, ssrc: ssrc, key: masterKeyAndSalt,
                                                           replayWindowPackets: replayWindowPackets, rtcpTagBits: 32)
            } catch {
                srtp_dealloc(context)
                throw error
            }
        } else {
            shortTagRTCPContext = nil
        }
        self.suite = suite
        self.direction = direction
        self.replayWindowPackets = replayWindowPackets
    }

    /// A session from checked keying (an `a=crypto` attribute's or `rtp.allocate.srtp`'s).
    public convenience init(keying: SRTPKeying, direction: SRTPDirection,
                            replayWindowPackets: Int = SRTPSession.defaultReplayWindowPackets) throws(SRTPError) {
        try self.init(suite: keying.suite, masterKeyAndSalt: keying.masterKeyAndSalt, direction: direction,
                      replayWindowPackets: replayWindowPackets)
    }

    deinit {
        srtp_dealloc(context)
        if let shortTagRTCPContext { srtp_dealloc(shortTagRTCPContext) }
    }

    /// A libsrtp session for one wildcard SSRC type. The _32 suite keeps the 80-bit tag for
    /// SRTCP (see `SRTPSuite`) unless `rtcpTagBits` is 32.
    private static func makeContext(_ suite: SRTPSuite, ssrc: srtp_ssrc_t, key: [UInt8], replayWindowPackets: Int,
                                    rtcpTagBits: Int = 80) throws(SRTPError) -> srtp_t {
        var policy = srtp_policy_t()
        switch suite {
        case .aesCM128HMACSHA1_80:
            tessera_srtp_policy_aes_cm_128_hmac_sha1_80(&policy.rtp)
            tessera_srtp_policy_aes_cm_128_hmac_sha1_80(&policy.rtcp)
        case .aesCM128HMACSHA1_32:
            srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(&policy.rtp)
            if rtcpTagBits == 32 {
                srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(&policy.rtcp)
            } else {
                tessera_srtp_policy_aes_cm_128_hmac_sha1_80(&policy.rtcp)
            }
        case .aeadAES128GCM:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
        }
        policy.ssrc = ssrc
        policy.window_size = UInt(replayWindowPackets)
        policy.allow_repeat_tx = 0
        policy.next = nil
        // srtp_create copies the key into the session's own cipher contexts; the array only
        // needs to live through the call.
        var key = key
        var session: srtp_t?
        let status = key.withUnsafeMutableBufferPointer { bytes in
            policy.key = bytes.baseAddress
            return srtp_create(&session, &policy)
        }
        if let error = SRTPError(status, "creating a \(suite.rawValue) session") { throw error }
        guard let session else { throw .failed("creating a \(suite.rawValue) session", status: 0) }
        return session
    }

    // MARK: - Packets

    // Every call works in place on `buffer[0..<length]` and returns the new length. libsrtp
    // assumes the packet starts on a 4-byte boundary (it reads header words as 32-bit values):
    // a buffer from `UnsafeMutableRawBufferPointer.allocate(byteCount:alignment:)` or an array is.

    /// Checks and decrypts one SRTP packet; the result is the plain RTP packet's length (the
    /// SRTP length less the tag). On failure the buffer's bytes are unspecified.
    public func unprotectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) -> Result<Int, SRTPError> {
        process(buffer, length: length, trailerRoom: 0, "unprotecting RTP") { srtp_unprotect($0, $1, $2) }
    }

    /// Checks and decrypts one SRTCP packet (compound or not); the result is the plain RTCP
    /// length (less the tag and the 4-byte SRTCP index).
    ///
    /// Inbound _32 only, both SRTCP tag lengths are tried (see the type's notes): libsrtp checks
    /// before it decrypts, so a packet that fails one way is still as received for the other.
    /// The way that last succeeded goes first and its error is the one reported, since read with
    /// the wrong tag length a packet fails for any reason (its E flag and index are looked for
    /// in the wrong place).
    public func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) -> Result<Int, SRTPError> {
        guard let shortTagRTCPContext else { return unprotectRTCP(buffer, length: length, in: context) }
        let (first, second) = rtcpTagsAreShort ? (shortTagRTCPContext, context) : (context, shortTagRTCPContext)
        let result = unprotectRTCP(buffer, length: length, in: first)
        guard case .failure = result else { return result }
        let other = unprotectRTCP(buffer, length: length, in: second)
        guard case .success = other else { return result }
        rtcpTagsAreShort.toggle()
        return other
    }

    private func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int,
                               in session: srtp_t) -> Result<Int, SRTPError> {
        process(buffer, length: length, trailerRoom: 0, "unprotecting RTCP", in: session) {
            srtp_unprotect_rtcp($0, $1, $2)
        }
    }

    /// Encrypts and authenticates one RTP packet; the result is the SRTP length (the RTP length
    /// plus the tag). `buffer.count` must be at least `length + SRTPSession.rtpTrailerRoom`.
    public func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) -> Result<Int, SRTPError> {
        process(buffer, length: length, trailerRoom: Self.rtpTrailerRoom, "protecting RTP") { srtp_protect($0, $1, $2) }
    }

    /// Encrypts and authenticates one RTCP packet; the result is the SRTCP length (plus the
    /// index and the tag). `buffer.count` must be at least `length + SRTPSession.rtcpTrailerRoom`.
    public func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) -> Result<Int, SRTPError> {
        process(buffer, length: length, trailerRoom: Self.rtcpTrailerRoom, "protecting RTCP") {
            srtp_protect_rtcp($0, $1, $2)
        }
    }

    /// Drops the stream libsrtp keeps for `ssrc` (its replay window and rollover counter), so
    /// that the SSRC's next packet starts afresh from the template, as after a sender restart.
    /// Returns false when the session had no stream for it.
    @discardableResult
    public func forgetSender(ssrc: UInt32) -> Bool {
        // libsrtp keys its streams by the SSRC as it lies in the header (network byte order).
        srtp_remove_stream(context, ssrc.bigEndian) == srtp_err_status_ok
    }

    private func process(_ buffer: UnsafeMutableRawBufferPointer, length: Int, trailerRoom: Int, _ what: String,
                         in session: srtp_t? = nil,
                         _ call: (srtp_t, UnsafeMutableRawPointer, UnsafeMutablePointer<Int32>) -> srtp_err_status_t)
        -> Result<Int, SRTPError> {
        guard let base = buffer.baseAddress, length > 0, length <= Int(Int32.max) - trailerRoom else {
            return .failure(.badParameter("\(what): packet length \(length)"))
        }
        guard length + trailerRoom <= buffer.count else {
            return .failure(.badParameter("\(what): \(length) bytes need a buffer of \(length + trailerRoom), "
                                          + "got \(buffer.count)"))
        }
        var newLength = Int32(length)
        if let error = SRTPError(call(session ?? context, base, &newLength), what) { return .failure(error) }
        return .success(Int(newLength))
    }
}
