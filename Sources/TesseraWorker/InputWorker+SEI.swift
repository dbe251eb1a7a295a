import TesseraComposition
import TesseraMedia

/// SEI passthrough on the input's side: the reader hands over the SEI user data of each picture
/// just before the picture; it is queued with the picture's output-timeline time, for the output
/// clock to put into the frame that first shows the picture (`inputs[].seiPassthrough`).
extension InputWorker {
    var wantsSEI: Bool { input.seiPassthrough }

    func sei(_ messages: [SEIMessage]) { seiOfNextPicture = messages }

    func queueSEI(ptsMicroseconds: Int64) {
        guard !seiOfNextPicture.isEmpty else { return }
        seiQueue.append(seiOfNextPicture, ptsMicroseconds: ptsMicroseconds)
        seiOfNextPicture = []
    }
}
