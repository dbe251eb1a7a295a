"""A live task's x264 threads, read from the x264 SEI of its recording: without
`encoder.video.threads`, one thread per 1280x720 at 30 fps of veryfast work (a node full of live
tasks is best served by encoders that do not each spread over every core); with it, the number
asked for."""
import subprocess

from livetools import wait_until


def x264_options(path) -> str | None:
    if not path.exists():
        return None
    text = subprocess.run(["strings", "-n", "20", str(path)], capture_output=True, text=True).stdout
    return next((line for line in text.splitlines() if "x264 - core" in line), None)


def task_document(task_id: str, clip: str, threads: int | None) -> dict:
    video = {"width": 1280, "height": 720, "fps": 30, "bitrateKbps": 1500, "gopSeconds": 1, "preset": "veryfast"}
    if threads:
        video["threads"] = threads
    return {"taskId": task_id, "inputs": [{"id": "cam", "url": clip, "loop": True}],
            "encoder": {"video": video, "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 64}},
            "layout": {"regions": [{"input": "cam", "x": 0, "y": 0, "width": 1280, "height": 720}]},
            "outputs": [{"url": f"{task_id}.flv"}]}


def test_live_encoder_threads_follow_the_work_unless_set(tessera_server, clips):
    api = tessera_server.client
    for task_id, threads, expected in (("threads-auto", None, 1), ("threads-two", 2, 2)):
        api.create(task_document(task_id, clips.red, threads))
        api.wait_state(task_id, "running", 15)
        recording = tessera_server.out / f"{task_id}.flv"
        assert wait_until(lambda: x264_options(recording) is not None, 15), f"{task_id}: no x264 SEI in {recording}"
        options = x264_options(recording)
        api.delete(f"/v1/tasks/{task_id}")
        assert f" threads={expected} " in options, f"{task_id}: {options}"
