// Issue 30 "Opening": in a browser opened on the Library (`…?token=…#library`), the Library's first
// page is asked for by this small script as soon as the page is parsed, while the app's code is
// still loading and running (~200 ms on a quiet machine, more on a busy one), instead of once it
// has run. The app's door (src/lib/api.ts) takes this answer for its first `library.query` when
// that call's input is exactly `FIRST_PAGE_BODY` below, and asks the host itself otherwise; the
// body is the Library's default query's first page (stores/library.ts DEFAULT_LIBRARY_SORT,
// queries/hooks.ts listPage, 200 rows): scripts/first-page.test.ts checks they agree.
// A plain script (no module, no import) shipped beside index.html by scripts/first-view-preload.mjs.
(function () {
  var FIRST_PAGE_BODY = '{"sort":{"field":"published_at","dir":"desc"},"limit":200,"lean":true}';
  if (window.loupe || window.location.hash !== '#library' || typeof fetch !== 'function') return;
  var token = null;
  try {
    token = new window.URLSearchParams(window.location.search).get('token') || window.sessionStorage.getItem('loupe-token');
  } catch (e) {
    return;
  }
  if (!token) return;
  window.__loupeFirstPage = {
    body: FIRST_PAGE_BODY,
    answer: fetch('/api/library.query', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-loupe-token': token },
      body: FIRST_PAGE_BODY,
    }),
  };
  // a rejection nobody takes is not an error of the page
  window.__loupeFirstPage.answer.catch(function () {});
})();
