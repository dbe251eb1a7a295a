// fuzz-modules: TesseraComposition TesseraRTP
import TesseraRTP

/// A datagram on an RTCP port (or an RTP port with rtcp-mux), through both readers: the
/// receiver's (`RTCPCompound`: SR timing and BYE, for sync and leave) and the sender's
/// (`RTCPSenderFeedback`: RR blocks, PLI, FIR, generic NACK, BYE), over SR, RR, SDES, BYE, APP,
/// RTPFB, PSFB, XR and unknown packet types, padding included.
///
/// Property: what each reader finds is bounded by the datagram's size (no entry read twice or
/// made up); anything else it must survive.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    if let compound = RTCPCompound.parse(bytes) {
        require(compound.senderReports.count * 28 <= bytes.count, "more sender reports than the datagram holds")
        require(compound.goodbyeSSRCs.count * 4 <= bytes.count, "more BYE SSRCs than the datagram holds")
        for report in compound.senderReports { _ = report.ntpMicroseconds }
    }
    if let feedback = RTCPSenderFeedback.parse(bytes) {
        require(feedback.reportBlocks.count * 24 <= bytes.count, "more report blocks than the datagram holds")
        require(feedback.fullIntraRequests.count * 8 <= bytes.count, "more FIR entries than the datagram holds")
        require(feedback.pictureLossSSRCs.count * 12 <= bytes.count, "more PLIs than the datagram holds")
        require(feedback.nackedSequenceNumbers.count <= 17 * bytes.count / 4, "more NACKed packets than the datagram holds")
        for nack in feedback.nacks { _ = feedback.nackedSequenceNumbers(ssrc: nack.mediaSSRC) }
    }
    return 0
}
