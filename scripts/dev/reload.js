// npm run dev: the script each docs page of the live loop ends with (served at /_dev/reload.js). It asks
// the loop for its status four times a second: the page reloads once the loop has written it again (its
// version moved on), and shows the last save's error as a banner until a save fixes it. Polled rather
// than held open, so a browser's few connections to the loop are never all taken by open pages.
(() => {
  const { page, version } = document.currentScript.dataset;
  const banner = document.createElement('pre');
  banner.id = 'dev-loop-error';
  banner.setAttribute('role', 'alert');
  banner.style.cssText =
    'position:fixed;z-index:99999;left:0;right:0;bottom:0;margin:0;max-height:40vh;overflow:auto;padding:12px;' +
    'background:#b00020;color:#fff;font:13px/1.4 monospace;white-space:pre-wrap';

  async function follow() {
    try {
      const response = await fetch('/_dev/status', { cache: 'no-store' });
      const status = await response.json();
      if (String(status.pages[page]) !== version) return location.reload();
      if (!status.error) banner.remove();
      else if (banner.textContent !== status.error || !banner.isConnected) {
        banner.textContent = status.error;
        document.body.append(banner);
      }
    } catch {
      // The loop is restarting or stopped: ask again.
    }
    setTimeout(follow, 250);
  }
  follow();
})();
