import Foundation
import Testing
import TesseraComposition
import TesseraTestSupport

@Suite struct SEICodecTests {
    static let uuid: [UInt8] = Array(0x10...0x1F)

    static func messages(_ bytes: [UInt8]) -> [SEIMessage] {
        bytes.withUnsafeBytes { SEICodec.messages(inAccessUnit: $0) }
    }

    @Test func writesTypeSizePayloadAndTrailingBits() {
        let nal = SEICodec.nal([.unregistered(uuid: Self.uuid, data: Array("hi".utf8))])
        #expect(nal == [0x06, 5, 18] + Self.uuid + [0x68, 0x69, 0x80])
    }

    @Test func sizesOf255AndMoreUseFFRuns() {
        let payload = [UInt8](repeating: 0x41, count: 16 + 300)
        let nal = SEICodec.nal([SEIMessage(payloadType: 5, payload: payload)])
        // 316 = 255 + 61.
        #expect(Array(nal[0..<4]) == [0x06, 5, 0xFF, 61])
        #expect(nal.last == 0x80)
        #expect(Self.messages([0, 0, 0, 1] + nal) == [SEIMessage(payloadType: 5, payload: payload)])
        // A payload type of 300 codes the same way.
        let typed = SEICodec.nal([SEIMessage(payloadType: 300, payload: [1])])
        #expect(Array(typed[0..<4]) == [0x06, 0xFF, 45, 1])
    }

    @Test func emulationPreventionIsAddedAndRemoved() {
        let data: [UInt8] = [0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4]
        let nal = SEICodec.nal([.unregistered(uuid: Self.uuid, data: data)])
        // No start-code prefix can appear inside the unit.
        for i in 0..<(nal.count - 2) { #expect(!(nal[i] == 0 && nal[i + 1] == 0 && nal[i + 2] <= 3 && nal[i + 2] != 3)) }
        #expect(Array(nal.suffix(20)).contains(3))
        #expect(Self.messages([0, 0, 1] + nal) == [.unregistered(uuid: Self.uuid, data: data)])
    }

    @Test func readsSeveralMessagesFromAnnexBAndLengthPrefixed() {
        let first = SEIMessage.unregistered(uuid: Self.uuid, data: Array("{\"a\":1}".utf8))
        let second = SEIMessage(payloadType: 4, payload: [0xB5, 0x00, 0x31, 0x47, 0x41])
        let sei = SEICodec.nal([first, second])
        let slice: [UInt8] = [0x65, 0x88, 0x84, 0x00, 0x10]
        let annexB: [UInt8] = [0, 0, 0, 1, 0x09, 0xF0] + [0, 0, 1] + sei + [0, 0, 0, 1] + slice
        #expect(Self.messages(annexB) == [first, second])
        let lengthPrefixed: [UInt8] = [0, 0, 0, UInt8(sei.count)] + sei + [0, 0, 0, UInt8(slice.count)] + slice
        #expect(Self.messages(lengthPrefixed) == [first, second])
    }

    @Test func truncatedOrGarbageInputNeverTraps() {
        let sei = SEICodec.nal([.unregistered(uuid: Self.uuid, data: Array(repeating: 7, count: 40))])
        // Cut anywhere: only whole messages come back.
        for cut in 0..<sei.count {
            let messages = Self.messages([0, 0, 1] + Array(sei[0..<cut]))
            #expect(messages.allSatisfy { $0.payload.count == 56 })
        }
        var generator = SplitMix64(state: 7)
        for _ in 0..<300 {
            let bytes = (0..<Int(generator.next() % 200)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            _ = Self.messages(bytes)
            _ = Self.messages([0, 0, 1, 6] + bytes)
            _ = bytes.withUnsafeBytes { H264NALUnits.inserting([6, 5, 0, 0x80], into: $0) }
        }
    }

    @Test func insertsBeforeTheFirstSliceKeepingFraming() {
        let sei = SEICodec.nal([.unregistered(uuid: Self.uuid, data: [1, 2, 3])])
        let aud: [UInt8] = [0x09, 0xF0], sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1E], idr: [UInt8] = [0x65, 0x88, 0x80]
        let annexB: [UInt8] = [0, 0, 0, 1] + aud + [0, 0, 0, 1] + sps + [0, 0, 1] + idr
        let out = annexB.withUnsafeBytes { H264NALUnits.inserting(sei, into: $0) }
        #expect(out == [0, 0, 0, 1] + aud + [0, 0, 0, 1] + sps + [0, 0, 0, 1] + sei + [0, 0, 1] + idr)
        let types = out.withUnsafeBytes { H264NALUnits.units(in: $0).map(\.type) }
        #expect(types == [9, 7, 6, 5])

        let avcc: [UInt8] = [0, 0, 0, 2] + aud + [0, 0, 0, 3] + idr
        let outAVCC = avcc.withUnsafeBytes { H264NALUnits.inserting(sei, into: $0) }
        #expect(outAVCC == [0, 0, 0, 2] + aud + [0, 0, 0, UInt8(sei.count)] + sei + [0, 0, 0, 3] + idr)
    }

    @Test func lengthPrefixedUnitThatLooksLikeAStartCodeIsStillLengthPrefixed() {
        // A 300-byte slice: its length field is 00 00 01 2C.
        let slice = [0x41] + [UInt8](repeating: 0x9A, count: 299)
        let sei = SEICodec.nal([.unregistered(uuid: Self.uuid, data: [9])])
        let avcc: [UInt8] = [0, 0, 1, 0x2C] + slice + [0, 0, 0, UInt8(sei.count)] + sei
        let framing = avcc.withUnsafeBytes { H264NALUnits.framing(of: $0) }
        #expect(framing == .lengthPrefixed(size: 4))
        #expect(Self.messages(avcc) == [.unregistered(uuid: Self.uuid, data: [9])])
    }

    @Test func passthroughKeepsUserDataButNotX264Info() {
        #expect(SEIMessage.unregistered(uuid: Self.uuid, data: [1]).isPassedThrough)
        #expect(!SEIMessage.unregistered(uuid: SEIMessage.x264InfoUUID, data: Array("x264 - core 164".utf8)).isPassedThrough)
        #expect(SEIMessage(payloadType: 4, payload: [0xB5, 0, 0x31]).isPassedThrough)
        #expect(!SEIMessage(payloadType: 6, payload: [0x80]).isPassedThrough)
        #expect(!SEIMessage(payloadType: 5, payload: [1, 2]).isPassedThrough)
    }

    @Test func timedQueueHandsOverEverythingShownByThen() {
        let queue = TimedSEIQueue(capacity: 3)
        let a = SEIMessage(payloadType: 5, payload: Self.uuid + [1]), b = SEIMessage(payloadType: 5, payload: Self.uuid + [2])
        queue.append([a], ptsMicroseconds: 33_000)
        queue.append([b], ptsMicroseconds: 66_000)
        #expect(queue.take(upTo: 10_000).isEmpty)
        // A frame at 70 ms shows the 66 ms picture: the skipped 33 ms picture's message comes too.
        #expect(queue.take(upTo: 70_000) == [a, b])
        #expect(queue.take(upTo: 100_000).isEmpty)
        for k in 0..<5 { queue.append([a], ptsMicroseconds: Int64(k)) }
        #expect(queue.count == 3)
    }

    @Test func injectionsRepeatForTheirCount() {
        let queue = SEIInjectionQueue()
        let once = SEIInjection(message: .unregistered(uuid: Self.uuid, data: [1]), repeatCount: 1)
        let thrice = SEIInjection(message: .unregistered(uuid: Self.uuid, data: [3]), repeatCount: 3)
        queue.add(thrice)
        queue.add(once)
        #expect(queue.takeForNextFrame() == [thrice.message, once.message])
        #expect(queue.takeForNextFrame() == [thrice.message])
        #expect(queue.takeForNextFrame() == [thrice.message])
        #expect(queue.takeForNextFrame().isEmpty)
    }

    @Test func volumeScheduleFiresEveryInterval() {
        var schedule = VolumeSEISchedule()
        let due = stride(from: Int64(0), to: 3000, by: 33).filter { schedule.isDue(atMilliseconds: $0, intervalMilliseconds: 1000) }
        #expect(due == [0, 1023, 2013])
    }

    @Test func layoutVolumeMessageIsJSONNamingRegionsAndLevels() throws {
        let layout = ResolvedLayout(canvasWidth: 640, canvasHeight: 360, backgroundColor: YUVColor(y: 16, u: 128, v: 128),
                                    backgroundImage: nil, regions: [
            ResolvedRegion(documentIndex: 0, content: .input(1), rect: PixelRect(x: 0, y: 0, width: 640, height: 360),
                           alpha: 255, renderMode: .crop, backgroundColor: nil, placeholderImage: nil),
            ResolvedRegion(documentIndex: 1, content: .input(0), rect: PixelRect(x: 480, y: 240, width: 160, height: 120),
                           alpha: 255, renderMode: .crop, backgroundColor: nil, placeholderImage: nil),
        ])
        var settings = SEISettings(volumeIntervalMilliseconds: 1000)
        settings.appData = "shop:42"
        let message = LayoutVolumeSEI.message(timeMilliseconds: 2000, settings: settings, layout: layout, inputIDs: ["host", "guest"],
                                              levels: ["host": AudioLevel(level: 80, speaking: true)])
        #expect(message.uuid == SEISettings.defaultVolumeUUID)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(message.payload.dropFirst(16))) as? [String: Any])
        #expect(json["ts"] as? Int == 2000)
        #expect(json["appData"] as? String == "shop:42")
        let regions = try #require(json["regions"] as? [[String: Any]])
        #expect(regions.map { $0["input"] as? String } == ["guest", "host"])
        #expect(regions[1]["x"] as? Int == 480 && regions[1]["zOrder"] as? Int == 1)
        let volumes = try #require(json["volumes"] as? [[String: Any]])
        #expect(volumes[0]["input"] as? String == "host" && volumes[0]["level"] as? Int == 80 && volumes[0]["speaking"] as? Bool == true)
        #expect(volumes[1]["level"] as? Int == 0 && volumes[1]["speaking"] as? Bool == false)
    }
}
