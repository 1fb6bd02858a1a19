// The one script of every page, served as a file (the Content-Security-Policy allows no inline script). Pages work
// without it; it only adds conveniences: copy buttons, closing an open menu when the visitor clicks elsewhere, a colour
// swatch filling its colour field (typing a colour chooses the typed one again), and following a Markdown heading's
// link (its id carries GitLab's `user-content-` prefix, so no page element can be clobbered by a name a user chose).
export const SCRIPT = `
document.addEventListener('click', function (event) {
  var target = event.target instanceof Element ? event.target : null
  var copy = target && target.closest('button[data-copy]')
  if (copy) {
    var field = document.getElementById(copy.getAttribute('data-copy'))
    if (field && navigator.clipboard) {
      navigator.clipboard.writeText(field.value !== undefined ? field.value : field.textContent).then(function () {
        var label = copy.textContent
        copy.textContent = 'Copied'
        setTimeout(function () { copy.textContent = label }, 1500)
      })
    }
  }
  document.querySelectorAll('details.menu[open]').forEach(function (menu) {
    if (!target || !menu.contains(target)) menu.removeAttribute('open')
  })
})
document.addEventListener('change', function (event) {
  var input = event.target
  var fieldId = input instanceof HTMLInputElement && input.checked && input.getAttribute('data-color-field')
  var field = fieldId && document.getElementById(fieldId)
  if (field) field.value = input.value
})
document.addEventListener('input', function (event) {
  var input = event.target
  var group = input instanceof HTMLInputElement && input.getAttribute('data-resets')
  var typed = group && document.querySelector('input[type=radio][name="' + group + '"][value=""]')
  if (typed) typed.checked = true
})
function showHeading() {
  var id = decodeURIComponent(location.hash.slice(1))
  if (id && !document.getElementById(id)) {
    var heading = document.getElementById('user-content-' + id)
    if (heading) heading.scrollIntoView()
  }
}
window.addEventListener('hashchange', showHeading)
document.addEventListener('DOMContentLoaded', showHeading)
`
