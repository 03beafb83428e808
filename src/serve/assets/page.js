// The explorer page's and the game page's keys: the arrow keys, Home and
// End follow the page's own links (back, forward, start, end), so the
// page works the same without script, only slower to step through.
document.addEventListener('keydown', function (e) {
  // Typing in a box, or a browser shortcut (Alt+Left is "back"), is not
  // a step.
  var tag = e.target && e.target.tagName;
  if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') return;
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  var id = { ArrowLeft: 'back', ArrowRight: 'forward', Home: 'first', End: 'last' }[e.key];
  var link = id && document.getElementById(id);
  if (link && link.href) {
    location.href = link.href;
  }
});
