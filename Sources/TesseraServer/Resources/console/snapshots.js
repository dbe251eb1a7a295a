// Live pictures of a task: snapshot.png fetched with the token and shown through a blob: URL.
// The next fetch starts only once the last one is answered (never more often than the server
// can afford) and only while the page is visible; each old blob URL is released.
import {api} from './api.js';

export class SnapshotFeed {
  /** @param {HTMLImageElement} img @param {number} intervalMs pause between two pictures */
  constructor(taskId, img, intervalMs = 1500) {
    this.taskId = taskId;
    this.img = img;
    this.intervalMs = intervalMs;
    this.timer = null;
    this.stopped = false;
    this.url = null;
    this.onVisibility = () => { if (!document.hidden) this.schedule(0); };
    document.addEventListener('visibilitychange', this.onVisibility);
    this.schedule(0);
  }

  schedule(delay) {
    clearTimeout(this.timer);
    if (!this.stopped) this.timer = setTimeout(() => this.refresh(), delay);
  }

  async refresh() {
    if (this.stopped || document.hidden) return;
    try {
      const blob = await api.snapshot(this.taskId);
      if (this.stopped) return;
      const previous = this.url;
      this.url = URL.createObjectURL(blob);
      this.img.src = this.url;
      this.img.classList.remove('no-picture');
      this.img.dataset.frames = String(Number(this.img.dataset.frames || 0) + 1);
      if (previous) setTimeout(() => URL.revokeObjectURL(previous), 1000);
      this.img.alt = `picture of task ${this.taskId}`;
    } catch (error) {
      // 409: audio-only or ended; keep the last picture, say why, and ask less often.
      this.img.classList.add('no-picture');
      this.img.alt = error.message;
      this.schedule(this.intervalMs * 5);
      return;
    }
    this.schedule(this.intervalMs);
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    document.removeEventListener('visibilitychange', this.onVisibility);
    if (this.url) URL.revokeObjectURL(this.url);
  }
}
