import TesseraMedia
import TesseraService

extension UDPPortChecker {
    /// This host's sockets, through the media library: the one place the command line joins the
    /// service side (which opens no media sockets) to `TesseraMedia`.
    static let host = UDPPortChecker(firstBusy: { UDPPortProbe.firstBusy($0, bindAddress: $1) },
                                     isLocalAddress: UDPPortProbe.isLocalAddress)
}
