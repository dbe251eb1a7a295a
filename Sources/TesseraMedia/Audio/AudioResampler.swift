import CFFmpeg

/// Converts decoded audio of any format, rate and channel layout to the output's planar float at
/// the output rate and channel count. Rebuilds itself when the input's format changes mid-stream.
///
/// `stretch` makes it produce that many times more samples than the rates say, to follow a
/// sender whose clock runs slow (> 1) or fast (< 1): swr's soft compensation, as `aresample`'s
/// async mode uses it. It turns the resampling filter on even between equal rates (16 samples of
/// delay, which `delay` includes).
final class AudioResampler {
    private var context: OpaquePointer?
    private var inputShape: (format: Int32, rate: Int32, layout: String)?
    let outputRate: Int32
    let outputChannels: Int32
    private var output: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?
    private var outputCapacity: Int32 = 0
    /// Output samples per input sample beyond the rates' ratio; 1 = none.
    var stretch = 1.0
    /// Compensation is set before every block once used, so that a return to 1 is applied too.
    private var stretching = false
    /// Samples over which swr spreads `compensation`: long enough to outlast any block (it is set
    /// again before every block), fine enough for 2 ppm steps.
    private static let compensationDistance: Int32 = 480_000

    init(outputRate: Int, outputChannels: Int) {
        self.outputRate = Int32(outputRate)
        self.outputChannels = Int32(outputChannels)
    }

    deinit {
        swr_free(&context)
        freeOutput()
    }

    /// Samples buffered inside the resampler, in output samples: the first sample the next
    /// `convert` returns lies this far before the frame given to it.
    var delay: Int64 {
        guard let context else { return 0 }
        return swr_get_delay(context, Int64(outputRate))
    }

    /// Converts one decoded frame (nil drains the resampler) and hands the planar float samples
    /// to `body` as one pointer per channel. Returns the number of samples produced.
    @discardableResult
    func convert(_ frame: UnsafePointer<AVFrame>?, _ body: ([UnsafePointer<Float>], Int) -> Void) throws -> Int {
        if let frame { try configure(for: frame) }
        guard let context else { return 0 }
        if stretch != 1 || stretching {
            stretching = true
            // swr lowers its step by delta / distance, giving 1 / (1 − delta / distance) times the
            // samples: delta = distance × (1 − 1 / stretch) is exact where delta = distance × (stretch − 1)
            // would be 100 ppm off at 1 %.
            let delta = Int32((Double(Self.compensationDistance) * (1 - 1 / stretch)).rounded())
            try FFmpeg.check(swr_set_compensation(context, delta, Self.compensationDistance), "cannot stretch audio")
        }
        let inputCount = frame?.pointee.nb_samples ?? 0
        let capacity = Int32(swr_get_out_samples(context, inputCount)) + 32
        try ensureCapacity(capacity)
        let produced: Int32
        if let frame {
            produced = swr_convert(context, output, capacity, tessera_frame_extended_data(frame), inputCount)
        } else {
            produced = swr_convert(context, output, capacity, nil, 0)
        }
        try FFmpeg.check(produced, "cannot resample audio")
        if produced > 0 {
            let planes = (0..<Int(outputChannels)).map { channel in
                UnsafeRawPointer(output![channel]!).assumingMemoryBound(to: Float.self)
            }
            body(planes, Int(produced))
        }
        return Int(produced)
    }

    private func configure(for frame: UnsafePointer<AVFrame>) throws {
        var layout = frame.pointee.ch_layout
        if layout.order == AV_CHANNEL_ORDER_UNSPEC || layout.nb_channels == 0 {
            av_channel_layout_default(&layout, max(1, frame.pointee.ch_layout.nb_channels))
        }
        let description = Self.describe(layout)
        let shape = (format: frame.pointee.format, rate: frame.pointee.sample_rate, layout: description)
        if let inputShape, inputShape == shape { return }
        swr_free(&context)
        var outputLayout = AVChannelLayout()
        av_channel_layout_default(&outputLayout, outputChannels)
        defer { av_channel_layout_uninit(&outputLayout) }
        try FFmpeg.check(swr_alloc_set_opts2(&context, &outputLayout, AV_SAMPLE_FMT_FLTP, outputRate,
                                             &layout, AVSampleFormat(frame.pointee.format), frame.pointee.sample_rate,
                                             0, nil), "cannot set up the audio resampler")
        try FFmpeg.check(swr_init(context), "cannot set up the audio resampler")
        inputShape = shape
    }

    private static func describe(_ layout: AVChannelLayout) -> String {
        var copy = layout
        var buffer = [CChar](repeating: 0, count: 128)
        av_channel_layout_describe(&copy, &buffer, buffer.count)
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    private func ensureCapacity(_ samples: Int32) throws {
        if samples <= outputCapacity { return }
        freeOutput()
        var planes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>? = nil
        try FFmpeg.check(av_samples_alloc_array_and_samples(&planes, nil, outputChannels, samples, AV_SAMPLE_FMT_FLTP, 0),
                         "out of memory for audio")
        output = planes
        outputCapacity = samples
    }

    private func freeOutput() {
        if let output {
            // The samples block hangs off the first plane pointer; the pointer array is av_malloc'ed too.
            av_freep(UnsafeMutableRawPointer(output))
            av_free(output)
        }
        output = nil
        outputCapacity = 0
    }
}
