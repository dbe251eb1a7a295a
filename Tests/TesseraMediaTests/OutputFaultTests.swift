import CFFmpeg
import Foundation
import Testing
import TesseraMedia

/// The words an operator reads when an output stalls, is refused or dies, the final state an
/// output leaves behind, and the reason a task gives when all its outputs gave up.
@Suite struct OutputFaultTests {
    @Test func aStallSaysSoInPlainWords() {
        #expect("\(OutputStall(seconds: 10))" == "stalled: the destination accepted no bytes for 10 s; connection abandoned")
        #expect("\(OutputStall(seconds: 2.5))".contains("for 2.5 s"))
    }

    @Test func anRTMPServerThatHangsUpOnThePublishRefusedIt() {
        let words = OutputFault.openFailure(kind: .rtmp, code: tessera_averror(EIO), serverMessage: nil,
                                            text: "cannot open for writing: Input/output error", timeoutSeconds: 5)
        #expect(words.hasPrefix("refused by the RTMP server: it closed the connection"))
    }

    @Test func anRTMPErrorStatusIsRefusedWithTheServersOwnWords() {
        let told = OutputFault.openFailure(kind: .rtmp, code: tessera_averror(EPERM), serverMessage: "publish forbidden",
                                           text: "x", timeoutSeconds: 5)
        #expect(told == "refused by the RTMP server: publish forbidden")
        let untold = OutputFault.openFailure(kind: .rtmp, code: tessera_averror(EPERM), serverMessage: nil,
                                             text: "x", timeoutSeconds: 5)
        #expect(untold.hasPrefix("refused by the RTMP server: it answered the publish with an error"))
    }

    @Test func nothingListeningAndNoAnswerAreToldApart() {
        let refused = OutputFault.openFailure(kind: .rtmp, code: tessera_averror(ECONNREFUSED), serverMessage: nil,
                                              text: "x", timeoutSeconds: 5)
        #expect(refused.hasPrefix("connection refused: nothing is listening"))
        let silent = OutputFault.openFailure(kind: .other, code: tessera_averror_exit(), serverMessage: nil,
                                             text: "x", timeoutSeconds: 5)
        #expect(silent == "no answer: the destination did not accept the stream within 5 s")
    }

    @Test func anHTTPOriginsRefusalIsNamed() {
        // AVERROR_HTTP_FORBIDDEN: FFERRTAG(0xF8, '4', '0', '3'), a macro Swift cannot import.
        let forbidden = -Int32(bitPattern: 0xF8 | UInt32(UInt8(ascii: "4")) << 8 | UInt32(UInt8(ascii: "0")) << 16
                               | UInt32(UInt8(ascii: "3")) << 24)
        let words = OutputFault.openFailure(kind: .other, code: forbidden, serverMessage: nil, text: "x", timeoutSeconds: 5)
        #expect(words == "refused by the destination: Server returned 403 Forbidden (access denied)")
    }

    @Test func otherFailuresKeepFFmpegsWords() {
        let text = "cannot open for writing: No such file or directory"
        #expect(OutputFault.openFailure(kind: .other, code: tessera_averror(ENOENT), serverMessage: nil,
                                        text: text, timeoutSeconds: 5) == text)
        #expect(OutputFault.openFailure(kind: .rtmp, code: nil, serverMessage: nil, text: text, timeoutSeconds: 5) == text)
        // Only RTMP's codes mean a refusal: an SRT or HTTP EIO is just an I/O error.
        #expect(OutputFault.openFailure(kind: .other, code: tessera_averror(EIO), serverMessage: nil,
                                        text: text, timeoutSeconds: 5) == text)
    }

    @Test func anOutputAlwaysEndsInAFinalState() {
        #expect(OutputFault.finalState(.live, hasError: false) == .finished)
        #expect(OutputFault.finalState(.live, hasError: true) == .finished)
        #expect(OutputFault.finalState(.paused, hasError: false) == .finished)
        #expect(OutputFault.finalState(.reconnecting, hasError: true) == .failed)
        #expect(OutputFault.finalState(.connecting, hasError: true) == .failed)
        #expect(OutputFault.finalState(.connecting, hasError: false) == .finished)
        #expect(OutputFault.finalState(.failed, hasError: true) == .failed)
        #expect(OutputFault.finalState(.finished, hasError: true) == .finished)
    }

    @Test func aTaskEndsOnlyWhenEveryOutputGaveUp() {
        let dead = (url: "rtmp://127.0.0.1:39999/live/secret-key", state: Publisher.State.failed,
                    lastError: Optional("connection refused: nothing is listening at the destination's address"))
        let file = (url: "rec.mp4", state: Publisher.State.live, lastError: String?.none)
        #expect(OutputFault.allOutputsFailedReason([]) == nil)
        #expect(OutputFault.allOutputsFailedReason([dead, file]) == nil)
        let reason = OutputFault.allOutputsFailedReason([dead])
        #expect(reason?.hasPrefix("the task ended because its only output failed: outputs[0] rtmp://127.0.0.1:39999/live/") == true)
        #expect(reason?.contains("secret-key") == false, "the stream key is redacted")
        #expect(reason?.hasSuffix("connection refused: nothing is listening at the destination's address") == true)
        let both = OutputFault.allOutputsFailedReason([dead, (url: "full/rec.mp4", state: .failed, lastError: "No space left on device")])
        #expect(both?.contains("all 2 outputs failed") == true)
        #expect(both?.contains("; outputs[1] full/rec.mp4: No space left on device") == true)
    }
}
