// The one stylesheet of every page, served as a file (the Content-Security-Policy allows no inline style). Tokens
// first: an 8 px spacing grid, a type scale, colours for text, borders and status badges.
export const STYLESHEET = `
:root{--space-1:4px;--space-2:8px;--space-3:16px;--space-4:24px;--space-5:32px;
--text:#1f1e24;--muted:#626168;--border:#dcdcde;--surface:#fff;--page:#fbfafd;--subtle:#f0f0f3;--radius:4px;
--primary:#1f75cb;--primary-dark:#1068bf;--danger:#dd2b0e;--topbar:#292961;--sidebar:#f4f4f7;--link:#1f75cb;
--font-mono:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
--triggered-bg:#fdd4cd;--triggered-fg:#a02e1c;--acknowledged-bg:#f5d9a8;--acknowledged-fg:#8f4700;
--resolved-bg:#c3e6cd;--resolved-fg:#24663b;--ignored-bg:#e3e3e8;--ignored-fg:#535158;
--opened-bg:#c3e6cd;--opened-fg:#24663b;--closed-bg:#cbe2f9;--closed-fg:#0b5cad;--merged-bg:#e1d8f9;--merged-fg:#5943b6;
--added-bg:#ecfdf0;--added-mark:#c7f0d2;--removed-bg:#fbe9eb;--removed-mark:#fac5cd}
*,*::before,*::after{box-sizing:border-box}
body{font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:var(--text);background:var(--page)}
a{color:var(--link);text-decoration:none}a:hover{text-decoration:underline}
:focus-visible{outline:2px solid var(--primary);outline-offset:2px}
.skip-link{position:absolute;left:-999px;top:0;background:#fff;padding:var(--space-2);z-index:10}.skip-link:focus{left:var(--space-2)}
.topbar{background:var(--topbar);color:#fff;display:flex;gap:var(--space-3);align-items:center;padding:0 var(--space-3);min-height:48px;flex-wrap:wrap}
.topbar a{color:#fff}.topbar .brand{font-weight:700;font-size:16px}
.topbar .search{flex:1 1 12rem;max-width:28rem;display:flex}.topbar .search input{width:100%;padding:6px var(--space-2);border:0;border-radius:var(--radius);font:inherit}
.topbar .menus{margin-left:auto;display:flex;gap:var(--space-2);align-items:center}
.menu{position:relative}.menu>summary{list-style:none;cursor:pointer;padding:6px var(--space-2);border-radius:var(--radius)}
.menu>summary::-webkit-details-marker{display:none}.menu>summary:hover,.menu[open]>summary{background:rgba(255,255,255,.16)}
.menu .menu-items{position:absolute;right:0;top:100%;background:var(--surface);color:var(--text);border:1px solid var(--border);border-radius:var(--radius);
min-width:12rem;padding:var(--space-1) 0;z-index:5;box-shadow:0 4px 12px rgba(0,0,0,.12);margin:0;list-style:none}
.menu .menu-items a,.menu .menu-items button{display:block;width:100%;text-align:left;color:var(--text);padding:6px var(--space-3);background:none;border:0;font:inherit;cursor:pointer}
.menu .menu-items a:hover,.menu .menu-items button:hover{background:var(--subtle);text-decoration:none}
.menu .menu-items .menu-header{padding:6px var(--space-3);color:var(--muted);border-bottom:1px solid var(--border);margin-bottom:var(--space-1)}
.layout{display:flex;min-height:calc(100vh - 48px)}
.sidebar{width:232px;flex:none;background:var(--sidebar);border-right:1px solid var(--border);padding:var(--space-3) var(--space-2)}
.sidebar .context{font-weight:600;padding:0 var(--space-2) var(--space-3);overflow-wrap:anywhere;display:block;color:var(--text)}
.sidebar ul{list-style:none;margin:0;padding:0}.sidebar li a{display:block;padding:6px var(--space-2);border-radius:var(--radius);color:var(--text)}
.sidebar li a:hover{background:#e6e6ec;text-decoration:none}.sidebar li a[aria-current=page]{background:#e1e1ea;font-weight:600}
.sidebar ul ul li a{padding-left:var(--space-4);font-size:13px}
main{flex:1;min-width:0;padding:var(--space-3) var(--space-4) var(--space-5)}
main>.content{max-width:1200px;margin:0 auto}main.narrow>.content{max-width:52rem}
@media (max-width:768px){.layout{display:block}.sidebar{width:auto;border-right:0;border-bottom:1px solid var(--border);padding:var(--space-2)}
.sidebar .context{padding-bottom:var(--space-1)}.sidebar>ul{display:flex;flex-wrap:wrap;gap:2px}.sidebar ul ul{display:none}
main{padding:var(--space-3)}.topbar .search{order:3;max-width:none;flex-basis:100%;padding-bottom:var(--space-2)}}
h1{font-size:22px;line-height:1.3;margin:var(--space-2) 0 var(--space-3)}h2{font-size:18px;margin:var(--space-4) 0 var(--space-2)}h3{font-size:16px}
h1,h2,h3{overflow-wrap:anywhere}
.breadcrumbs{color:var(--muted);font-size:13px;overflow-wrap:anywhere;margin-bottom:var(--space-2)}
.breadcrumbs ol{list-style:none;display:flex;flex-wrap:wrap;gap:var(--space-1);margin:0;padding:0}.breadcrumbs li+li::before{content:"/";margin-right:var(--space-1)}
label{display:block;margin:var(--space-3) 0 var(--space-1);font-weight:600}label.scope,label.inline-label{font-weight:400}
.sign-in-options{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:baseline;gap:var(--space-2)}.sign-in-options label{margin:var(--space-3) 0 0}
input[type=text],input[type=password],input[type=email],input[type=search],input[type=url],input[type=date],select,textarea{width:100%;padding:6px var(--space-2);font:inherit;border:1px solid #89888d;border-radius:var(--radius);background:#fff}
.help{color:var(--muted);font-size:13px;margin:var(--space-1) 0}
button,.button{display:inline-block;padding:6px var(--space-3);font:inherit;cursor:pointer;border:1px solid var(--border);border-radius:var(--radius);background:#fff;color:var(--text);line-height:1.5}
.button:hover{text-decoration:none;background:var(--subtle)}
button.primary,.button.primary{background:var(--primary);color:#fff;border-color:var(--primary)}button.primary:hover,.button.primary:hover{background:var(--primary-dark)}
button.secondary,.button.secondary{background:#fff;color:inherit}button.danger,.button.danger{background:var(--danger);border-color:var(--danger);color:#fff}
.button.small,button.small{padding:2px var(--space-2);font-size:13px}
.button-row{display:flex;flex-wrap:wrap;gap:var(--space-2);margin:var(--space-3) 0;align-items:center}.button-row form{margin:0}form.inline{display:inline}
.flash{padding:var(--space-2) var(--space-3);border-radius:var(--radius);background:#fdf1dd;margin:0 0 var(--space-3)}.flash.notice{background:#ecf4ee}
.field-error{color:#c91c00;margin:var(--space-1) 0 0}
code,kbd{font-family:var(--font-mono);font-size:.9em;background:var(--subtle);padding:0 .3em;border-radius:3px;overflow-wrap:anywhere}
pre{font-family:var(--font-mono);font-size:13px;overflow:auto;background:var(--subtle);padding:var(--space-2) var(--space-3);border-radius:var(--radius)}pre code{background:none;padding:0}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:var(--space-2);border-bottom:1px solid var(--border);vertical-align:top}
th{font-weight:600}.table-box{max-width:100%;overflow-x:auto;border:1px solid var(--border);border-radius:var(--radius);background:var(--surface)}
.table-box table td,.table-box table th{border-bottom:1px solid var(--border)}.table-box tr:last-child td{border-bottom:0}
.num{text-align:right;font-variant-numeric:tabular-nums}.muted,.none,.empty{color:var(--muted)}
.empty-state{text-align:center;color:var(--muted);padding:var(--space-5) var(--space-3);border:1px dashed var(--border);border-radius:var(--radius);background:var(--surface)}
.badge{display:inline-block;padding:0 var(--space-2);border-radius:1rem;font-size:12px;font-weight:600;line-height:1.6rem;background:var(--subtle);color:var(--muted);white-space:nowrap}
.status-triggered{background:var(--triggered-bg);color:var(--triggered-fg)}.status-acknowledged{background:var(--acknowledged-bg);color:var(--acknowledged-fg)}
.status-resolved{background:var(--resolved-bg);color:var(--resolved-fg)}.status-ignored{background:var(--ignored-bg);color:var(--ignored-fg)}
.status-opened{background:var(--opened-bg);color:var(--opened-fg)}.status-closed{background:var(--closed-bg);color:var(--closed-fg)}.status-merged{background:var(--merged-bg);color:var(--merged-fg)}
dl.fields{display:grid;grid-template-columns:minmax(7rem,max-content) minmax(0,1fr);gap:var(--space-2) var(--space-3);margin:var(--space-3) 0}
dl.fields dt{font-weight:600}dl.fields dd{margin:0;overflow-wrap:anywhere}ul.plain{list-style:none;margin:0;padding:0}
table.key-values{table-layout:fixed}table.key-values thead th:first-child{width:30%}
table.key-values th[scope=row]{font-weight:600;overflow-wrap:anywhere}table.key-values td{overflow-wrap:anywhere}table.key-values .value{white-space:pre-wrap}
table.key-values pre{margin:0;max-height:16rem;overflow:auto;white-space:pre;font-size:12px}
ol.activity{list-style:none;padding:0;margin:0}ol.activity li{padding:var(--space-2) 0;border-bottom:1px solid var(--border);overflow-wrap:anywhere}
.note-username{color:var(--muted)}
.list{list-style:none;margin:0;padding:0;border:1px solid var(--border);border-radius:var(--radius);background:var(--surface)}
.list>li{padding:var(--space-2) var(--space-3);border-bottom:1px solid var(--border);display:flex;gap:var(--space-3);align-items:center;flex-wrap:wrap}
.list>li:last-child{border-bottom:0}.list .title{font-weight:600;overflow-wrap:anywhere}.list .meta{color:var(--muted);font-size:13px;overflow-wrap:anywhere}.list .grow{flex:1 1 16rem;min-width:0;overflow-wrap:anywhere}
.tabs{display:flex;gap:var(--space-1);border-bottom:1px solid var(--border);margin:var(--space-3) 0;overflow-x:auto}
.tabs a,.tabs strong{padding:var(--space-2) var(--space-3);white-space:nowrap;color:var(--text);border-bottom:2px solid transparent}
.tabs [aria-current=page]{border-bottom-color:var(--primary);font-weight:600}
.status-tabs{display:flex;gap:var(--space-3);flex-wrap:wrap;margin:var(--space-3) 0}.pagination{display:flex;gap:var(--space-3);margin:var(--space-3) 0;align-items:center}
.avatar{display:inline-flex;align-items:center;justify-content:center;width:32px;height:32px;border-radius:50%;background:#e7e4f2;color:#453894;font-weight:700;flex:none}
.avatar.large{width:64px;height:64px;font-size:24px}
.header-row{display:flex;gap:var(--space-3);align-items:center;flex-wrap:wrap}.header-row h1{margin:0}.header-row .actions{margin-left:auto;display:flex;gap:var(--space-2);flex-wrap:wrap}
.markdown{overflow-wrap:anywhere}.markdown img{max-width:100%}.markdown table{width:auto;margin:var(--space-3) 0}.markdown td,.markdown th{border:1px solid var(--border)}
.markdown ul.task-list{list-style:none;padding-left:var(--space-3)}.markdown blockquote{margin:0;padding:0 var(--space-3);color:var(--muted);border-left:3px solid var(--border)}
.markdown .anchor{margin-left:-1em;padding-right:.25em;visibility:hidden}.markdown :hover>.anchor{visibility:visible}
.box{border:1px solid var(--border);border-radius:var(--radius);background:var(--surface);margin:var(--space-3) 0}
.box>header{display:flex;gap:var(--space-2);align-items:center;flex-wrap:wrap;padding:var(--space-2) var(--space-3);background:var(--subtle);border-bottom:1px solid var(--border);overflow-wrap:anywhere}
.box>.body{padding:var(--space-3)}
.copy-field{display:flex;gap:0}.copy-field input{border-top-right-radius:0;border-bottom-right-radius:0;font-family:var(--font-mono);font-size:13px}
.copy-field button{border-top-left-radius:0;border-bottom-left-radius:0;border-left:0}
.code{font-family:var(--font-mono);font-size:13px;line-height:20px;overflow-x:auto}
.code table{border-collapse:collapse;width:100%}.code td{padding:0 var(--space-2);border:0;white-space:pre;vertical-align:top}
.code td.line-number{width:1%;text-align:right;color:var(--muted);user-select:none;border-right:1px solid var(--border);background:var(--surface)}
.code td.line-number a{color:var(--muted)}.code tr:target td{background:#fef6e1}
.diff .added td{background:var(--added-bg)}.diff .removed td{background:var(--removed-bg)}.diff .hunk td{background:#f0f4fb;color:var(--muted)}
.diff .added ins,.diff .removed del{text-decoration:none}.diff .added ins{background:var(--added-mark)}.diff .removed del{background:var(--removed-mark)}
.lang-bar{display:block;width:100%;height:8px;border-radius:4px;margin:var(--space-2) 0}
.languages .legend{list-style:none;display:flex;flex-wrap:wrap;gap:var(--space-1) var(--space-3);padding:0;margin:0 0 var(--space-3);font-size:13px}
.hljs-comment,.hljs-quote{color:#707070;font-style:italic}.hljs-keyword,.hljs-selector-tag,.hljs-literal,.hljs-doctag{color:#a626a4}
.hljs-string,.hljs-regexp,.hljs-addition,.hljs-attribute,.hljs-meta .hljs-string{color:#3a7d18}.hljs-number,.hljs-symbol,.hljs-bullet,.hljs-link{color:#986801}
.hljs-title,.hljs-section,.hljs-title.function_{color:#2c5cc5}.hljs-built_in,.hljs-type,.hljs-class .hljs-title,.hljs-title.class_{color:#b35900}
.hljs-variable,.hljs-template-variable,.hljs-params{color:#1f1e24}.hljs-attr,.hljs-name,.hljs-tag,.hljs-selector-id,.hljs-selector-class{color:#c0331c}
.hljs-meta{color:#4078f2}.hljs-deletion{color:#c0331c}.hljs-emphasis{font-style:italic}.hljs-strong{font-weight:700}
.visually-hidden{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.label-badge,.markdown .gl-label-link{display:inline-flex;align-items:center;gap:var(--space-1);padding:0 var(--space-2);border:1px solid var(--border);border-radius:1rem;font-size:12px;line-height:1.6rem;color:var(--text);background:var(--surface);margin:0 var(--space-1) 2px 0;max-width:100%;overflow-wrap:anywhere}
a.label-badge:hover,.markdown .gl-label-link:hover{background:var(--subtle);text-decoration:none}.label-dot{flex:none}.markdown .gl-label-link{margin:0}
.issuable-header{display:flex;gap:var(--space-2);align-items:center;flex-wrap:wrap;color:var(--muted)}.issuable-header .meta{color:var(--muted)}
.issuable-title{margin-top:var(--space-2)}.merge-request-branches{color:var(--muted);overflow-wrap:anywhere}
.ref-name code,code.ref-name{background:#e9f1fb;color:var(--primary-dark)}
.issuable-layout{display:grid;grid-template-columns:minmax(0,1fr) 16rem;gap:var(--space-4);align-items:start}
.issuable-sidebar{border-left:1px solid var(--border);padding-left:var(--space-3)}.issuable-field{padding:var(--space-2) 0;border-bottom:1px solid var(--border);overflow-wrap:anywhere}
.issuable-field h3{font-size:13px;margin:0 0 var(--space-1);color:var(--muted);font-weight:600}
@media (max-width:960px){.issuable-layout{grid-template-columns:minmax(0,1fr)}.issuable-sidebar{order:-1;border-left:0;padding-left:0;display:grid;grid-template-columns:repeat(auto-fit,minmax(10rem,1fr));gap:0 var(--space-3)}}
.description{padding:var(--space-2) 0 var(--space-3);border-bottom:1px solid var(--border)}
.discussion ol.notes{list-style:none;margin:0;padding:0}.discussion li.note{display:flex;gap:var(--space-2);margin:var(--space-3) 0}
.note-box{flex:1;min-width:0;border:1px solid var(--border);border-radius:var(--radius);background:var(--surface)}
.note-box>header{display:flex;flex-wrap:wrap;gap:var(--space-1) var(--space-2);align-items:baseline;padding:var(--space-2) var(--space-3);border-bottom:1px solid var(--border);background:var(--subtle)}
.note-box .note-time{color:var(--muted);font-size:13px}.note-text{padding:var(--space-2) var(--space-3)}.note-text>:first-child{margin-top:0}.note-text>:last-child{margin-bottom:0}
.internal-note .note-box{border-color:#e9be74}.internal-note .note-box>header{background:#fdf1dd}
.discussion li.system-note{color:var(--muted);font-size:13px;padding-left:40px;flex-wrap:wrap;align-items:baseline;margin:var(--space-2) 0;overflow-wrap:anywhere}
.system-note .markdown.inline p{display:inline;margin:0}.system-note .note-time{margin-left:auto}
.state-tabs .count,.tabs .count{margin-left:var(--space-1);font-weight:400}
.list-search{display:flex;gap:var(--space-2);margin:var(--space-3) 0}.list-search input{flex:1;min-width:0}
.active-filters{display:flex;flex-wrap:wrap;gap:var(--space-2);align-items:center;color:var(--muted)}
.filter-token{display:inline-flex;gap:var(--space-1);align-items:center;padding:0 var(--space-2);border-radius:1rem;background:var(--subtle);color:var(--text);overflow-wrap:anywhere}
.filter-token a{padding:0 var(--space-1);font-weight:700}
.issuable-row .title{margin-right:var(--space-1)}.row-side{display:flex;gap:var(--space-2);align-items:center;flex-wrap:wrap}
.assignee-avatars{display:inline-flex}.assignee-avatars .avatar{width:24px;height:24px;font-size:12px;margin-left:-4px;border:2px solid var(--surface)}
.confidential-badge,.locked-badge{background:#fdf1dd;color:#8f4700}.draft-badge{background:var(--ignored-bg);color:var(--ignored-fg)}.status-expired{background:#fdf1dd;color:#8f4700}
.diff-toolbar{display:flex;flex-wrap:wrap;gap:var(--space-2);justify-content:space-between;align-items:center;margin:var(--space-3) 0}
.view-switch{display:flex;gap:0}.view-switch .button{border-radius:0}.view-switch .button:first-child{border-radius:var(--radius) 0 0 var(--radius)}
.view-switch .button:last-child{border-radius:0 var(--radius) var(--radius) 0;border-left:0}.view-switch [aria-current=page]{background:var(--subtle);font-weight:600}
.additions{color:var(--resolved-fg);font-weight:600}.deletions{color:var(--triggered-fg);font-weight:600}
.diffs-layout{display:grid;grid-template-columns:16rem minmax(0,1fr);gap:var(--space-3);align-items:start}
.diffs-layout .file-tree{margin:0;position:sticky;top:var(--space-2);max-height:calc(100vh - var(--space-4));overflow:auto}
.file-tree h2{font-size:14px;margin:0}.file-tree ol{padding:var(--space-1) 0}.file-tree li{display:flex;gap:var(--space-2);justify-content:space-between;padding:2px var(--space-3);font-size:13px}
.file-tree li a{overflow-wrap:anywhere;min-width:0;color:var(--text)}.file-tree .diff-stats{flex:none;font-size:12px}
.change-dot{display:inline-block;width:8px;height:8px;border-radius:50%;margin-right:var(--space-1);background:var(--muted)}
.file-added .change-dot{background:var(--resolved-fg)}.file-deleted .change-dot{background:var(--triggered-fg)}.file-renamed .change-dot{background:var(--primary)}
.diffs-layout.parallel{grid-template-columns:minmax(0,1fr)}.diffs-layout.parallel .file-tree{position:static;max-height:16rem}
.diff-table.phone-fallback{display:none}@media (max-width:768px){.diff-table.parallel{display:none}.diff-table.phone-fallback{display:table}}
@media (max-width:960px){.diffs-layout{grid-template-columns:minmax(0,1fr)}.diffs-layout .file-tree{position:static;max-height:16rem}}
.diff-files .box:first-child{margin-top:0}
details.diff-file>summary{display:flex;flex-wrap:wrap;gap:var(--space-2);align-items:center;padding:var(--space-2) var(--space-3);background:var(--subtle);cursor:pointer;overflow-wrap:anywhere;border-radius:var(--radius)}
details.diff-file[open]>summary{border-bottom:1px solid var(--border);border-radius:var(--radius) var(--radius) 0 0}
.file-title{font-family:var(--font-mono);font-size:13px;font-weight:600;min-width:0}.old-path{color:var(--muted);font-weight:400}.diff-file-actions{margin-left:auto;display:flex;gap:var(--space-2);align-items:center}.diff-file .diff-stats{font-size:13px}
.collapsed-hint{flex-basis:100%;font-size:13px}details[open] .collapsed-hint{display:none}
.diff-notice{margin:0;padding:var(--space-3);color:var(--muted)}
.diff-table td.line-number{min-width:3em}.diff-table .sign{display:inline-block;width:1.2em;user-select:none;color:var(--muted)}
.diff td.line.added,.diff td.line-number:has(+td.line.added){background:var(--added-bg)}
.diff td.line.removed,.diff td.line-number:has(+td.line.removed){background:var(--removed-bg)}.diff td.empty-cell{background:var(--subtle)}
.diff td.line.added ins{background:var(--added-mark);text-decoration:none}.diff td.line.removed del{background:var(--removed-mark);text-decoration:none}
.diff-table.parallel{table-layout:fixed;min-width:720px}.diff-table.parallel td.line-number{width:3.5em}.diff-table.parallel td.line{white-space:pre-wrap;overflow-wrap:anywhere}
.diff-table.parallel td.line.old{border-right:1px solid var(--border)}
.box>header h2{font-size:14px;margin:0;overflow-wrap:anywhere}.snippet-file h2{font-family:var(--font-mono)}.snippet-file header .button{margin-left:auto}
.milestone-progress{width:12rem;max-width:100%;vertical-align:middle;margin-right:var(--space-2)}
.empty-state p{margin:var(--space-1) 0}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.repository-header{display:flex;flex-wrap:wrap;gap:var(--space-2) var(--space-3);align-items:center;margin:var(--space-2) 0 var(--space-3)}
.repository-header .actions{margin-left:auto;display:flex;flex-wrap:wrap;gap:var(--space-2);align-items:center}
.ref-switcher{display:flex;gap:var(--space-1);align-items:center;max-width:100%}.ref-switcher select{width:auto;max-width:16rem;min-width:0}
.path-crumbs{min-width:0;overflow-wrap:anywhere}.path-crumbs ol{list-style:none;display:flex;flex-wrap:wrap;gap:var(--space-1);margin:0;padding:0;font-size:15px}
.path-crumbs li+li::before{content:"/";margin-right:var(--space-1);color:var(--muted)}
.download-menu>summary.button{background:#fff}.download-menu>summary.button:hover,.download-menu[open]>summary.button{background:var(--subtle)}
.download-menu .menu-items{right:0;min-width:8rem}
.icon-sprite{position:absolute;width:0;height:0;overflow:hidden}.icon{width:16px;height:16px;flex:none;vertical-align:-3px;margin-right:var(--space-2);color:var(--muted);fill:currentColor}
.icon-file,.icon-submodule{fill:none}.tree-table td{padding:6px var(--space-3)}.tree-table td.tree-item{overflow-wrap:anywhere}.tree-table th:last-child,.tree-table td:last-child{width:9rem}
.tree-table .tree-commit{width:45%;max-width:0}.tree-table .tree-commit a{display:block;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;color:var(--muted)}
.tree-table .tree-commit a:hover{color:var(--link)}.tree-table .tree-time{text-align:right;white-space:nowrap;color:var(--muted)}@media (max-width:640px){.tree-table .tree-commit{display:none}}
.find-file-form{display:flex;gap:var(--space-2);align-items:center;flex:1 1 20rem;min-width:0}.find-file-form input{flex:1 1 10rem;min-width:0}.find-file-project{white-space:nowrap}
.find-file-table td.tree-item:last-child{width:auto}.find-file-table b{font-weight:700;color:var(--text)}.find-file-summary{margin:0 0 var(--space-2)}
.last-commit>header{border-bottom:0;background:var(--surface)}.last-commit .meta,.commit-row .meta{color:var(--muted);font-size:13px}
.last-commit .commit-sha,.file-header .file-actions{margin-left:auto}.commit-title{font-weight:600;overflow-wrap:anywhere}
.file-header h2.file-title,.box-title{font-size:14px;margin:0;font-family:var(--font-mono);overflow-wrap:anywhere}
.file-header .file-actions{display:flex;gap:var(--space-2);flex-wrap:wrap}.view-toggle{display:flex;gap:var(--space-2)}
.view-toggle>*{padding:2px var(--space-2);border-radius:var(--radius)}.view-toggle strong{background:var(--surface);border:1px solid var(--border)}
.code td.line{width:99%}.blob-content,.blame-content,.diff{max-width:100%}
.blame-content td.blame-commit{white-space:normal;min-width:14rem;max-width:20rem;width:20rem;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:13px;line-height:1.4;background:var(--surface);border-right:1px solid var(--border);padding:var(--space-1) var(--space-2)}
.blame-content tr.blame-start td{border-top:1px solid var(--border)}.blame-commit .meta{color:var(--muted)}
.image-view{text-align:center}.image-view img{max-width:100%;height:auto}
.commit-row .grow{min-width:0}.commit-actions{display:flex;gap:var(--space-2);align-items:center;flex-wrap:wrap}
.commit-description{white-space:pre-wrap;overflow-wrap:anywhere;background:none;padding:0;margin:var(--space-1) 0 0;font-size:13px}
.commits-day{font-size:14px;color:var(--muted);font-weight:600;margin:var(--space-3) 0 var(--space-2)}
.commit-header h1.commit-title{margin-top:var(--space-2)}.commit-meta{margin:0}.commit-header .commit-description{font-size:14px}
.compare-fields{display:grid;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));gap:0 var(--space-3)}
.ref-search{display:flex;gap:var(--space-2)}.ref-search input{min-width:0;width:16rem;max-width:100%}
.ref-list .ref-name{font-family:var(--font-mono)}.ref-list .button-row{margin:0}.tag-message{white-space:pre-wrap;overflow-wrap:anywhere;color:var(--muted)}
.readme-text{margin:0;border-radius:0 0 var(--radius) var(--radius)}.clone-command{text-align:left;display:inline-block;max-width:100%}
.ref-list{margin-top:var(--space-3)}.highlight-note{font-size:13px}
.file-box .markdown .anchor,.readme .markdown .anchor{position:absolute}
.count-button{display:inline-flex;align-items:stretch;margin:0}.count-button>button,.count-button>.button{border-radius:var(--radius) 0 0 var(--radius)}
.count-button>.count{display:inline-flex;align-items:center;padding:6px var(--space-3);border:1px solid var(--border);border-left:0;border-radius:0 var(--radius) var(--radius) 0;background:var(--surface);color:var(--text);font-variant-numeric:tabular-nums}
.count-button>.count:hover{background:var(--subtle);text-decoration:none}.header-row .actions .badge{align-self:center}
.starrer-search,.fork-search{display:flex;flex-wrap:wrap;gap:var(--space-1) var(--space-2);align-items:center;margin:0 0 var(--space-3)}
.starrer-search label,.fork-search label{flex-basis:100%;margin:0}.starrer-search input,.fork-search input{flex:1 1 12rem;width:auto;min-width:0}
.settings-section>.body>form:last-child,.settings-section>.body>.button-row:last-child{margin-bottom:0}.settings-section h3{margin:var(--space-4) 0 var(--space-1)}.settings-section h3:first-child{margin-top:0}
.settings-section.danger-zone{border-color:var(--danger)}.settings-section.danger-zone>header{background:var(--removed-bg)}ul.help{padding-left:var(--space-4)}
.field-row{display:flex;flex-wrap:wrap;gap:0 var(--space-3)}.field-row .field{flex:0 1 10rem;min-width:0}.field-row .field.grow{flex:1 1 16rem}
fieldset.choices{border:0;padding:0;margin:var(--space-3) 0 0;min-width:0}fieldset.choices legend{font-weight:600;padding:0;margin-bottom:var(--space-1)}
.choice{display:grid;grid-template-columns:auto 1fr;gap:0 var(--space-2);align-items:baseline;margin:var(--space-2) 0}.choice label{margin:0}.choice .help{grid-column:2;margin:0}
.prefixed-field{display:flex;flex-wrap:wrap;min-width:0}.prefixed-field .prefix{padding:6px var(--space-2);background:var(--subtle);border:1px solid #89888d;border-right:0;border-radius:var(--radius) 0 0 var(--radius);color:var(--muted);overflow-wrap:anywhere;min-width:0}
.prefixed-field input{flex:1 1 10rem;width:auto;min-width:0;border-radius:0 var(--radius) var(--radius) 0}
.settings-table{position:relative}.settings-table code.ref-name{white-space:nowrap}.edit-project input[readonly]{background:var(--subtle)}.settings-table td .button-row,.settings-table td form{margin:0}.settings-table td.actions{text-align:right;white-space:nowrap}.settings-table select{width:auto;max-width:100%}
.new-token{border:1px solid var(--resolved-fg);background:#ecf4ee;border-radius:var(--radius);padding:var(--space-3);margin:0 0 var(--space-3)}.new-token h2{margin-top:0}
ol.stack-trace{list-style:none;margin:0;padding:0}.stack-trace .frame{border:1px solid var(--border);border-radius:var(--radius);background:var(--surface);margin:0 0 var(--space-2);min-width:0}
.frame-location{padding:var(--space-2) var(--space-3);overflow-wrap:anywhere}.frame-file{font-family:var(--font-mono);font-size:13px;font-weight:600}
.frame-context{margin:0;border-top:1px solid var(--border);border-radius:0 0 var(--radius) var(--radius);white-space:pre;overflow-x:auto}
.frame-context .context-line{display:block;width:max-content;min-width:100%}.frame-context .context-line.current{background:#fef6e1;font-weight:600}
.frame.culprit{border-color:#e9be74}.frame.culprit .frame-location{background:#fdf1dd;border-radius:var(--radius) var(--radius) 0 0}.culprit-badge{background:var(--acknowledged-bg);color:var(--acknowledged-fg)}
.integrations .integration-actions{white-space:nowrap}.integrations .integration-actions form+form{margin-left:var(--space-1)}.integrations .integration-url{display:inline-block;min-width:14rem}
.client-keys{list-style:none;margin:var(--space-2) 0;padding:0;border:1px solid var(--border);border-radius:var(--radius);background:var(--surface)}.client-key{padding:var(--space-2) var(--space-3);border-top:1px solid var(--border);min-width:0}.client-key:first-child{border-top:0}
.client-key-header{display:flex;flex-wrap:wrap;gap:var(--space-1) var(--space-2);align-items:center}.client-key-header .row-actions{margin-left:auto}.client-key-public{overflow-wrap:anywhere;min-width:0}.client-key label{margin:var(--space-1) 0 2px}
.row-actions{display:flex;flex-wrap:wrap;gap:var(--space-1) var(--space-2);align-items:center}.row-actions form{margin:0}
.label-name{display:flex;flex-wrap:wrap;gap:var(--space-1) var(--space-2);align-items:center}.label-name .label-badge{margin:0}.label-group{font-size:13px}
.prioritized-badge{background:var(--closed-bg);color:var(--closed-fg)}.label-section h2{font-size:16px}.label-links{margin-top:var(--space-1)}
button.danger-outline,.button.danger-outline{color:var(--danger);border-color:var(--danger);background:#fff}
details.confirm-menu[open]{flex-basis:100%}details.confirm-menu>summary.button{padding:6px var(--space-3)}details.confirm-menu>summary.button.small{padding:2px var(--space-2)}details.confirm-menu>summary.button:hover,details.confirm-menu[open]>summary.button{background:var(--removed-bg)}
details.confirm-menu .confirm-box{position:static;margin-top:var(--space-1);padding:var(--space-2) var(--space-3);box-shadow:none;border-color:var(--danger);max-width:32rem}
.confirm-box p{margin:0 0 var(--space-2);overflow-wrap:anywhere}.confirm-box form{margin:0}
details.confirm-menu .confirm-box button.danger,details.confirm-menu .confirm-box button.danger:hover{display:inline-block;width:auto;padding:6px var(--space-3);background:var(--danger);border:1px solid var(--danger);color:#fff}
.suggested-colors{border:0;padding:0;margin:var(--space-2) 0 0;min-width:0}.suggested-colors legend{font-weight:600;padding:0}.suggested-colors .inline-label{margin:var(--space-1) 0}
.swatches{display:flex;flex-wrap:wrap;gap:var(--space-1)}.swatch{position:relative;margin:0;cursor:pointer;line-height:0}
.swatch input{position:absolute;opacity:0;width:1px;height:1px;margin:0}.swatch svg{border:2px solid transparent;border-radius:6px}
.swatch input:checked+svg{border-color:var(--text)}.swatch input:focus-visible+svg{outline:2px solid var(--primary);outline-offset:1px}
input.color-input{max-width:14rem;font-family:var(--font-mono)}.swatch rect,.label-dot circle{stroke:rgba(0,0,0,.2);stroke-width:1}
fieldset.settings-choice,fieldset.scopes,.custom-events fieldset{border:0;padding:0;margin:var(--space-3) 0 0;min-width:0}fieldset.settings-choice legend,fieldset.scopes legend{font-weight:600;padding:0}
.scope-choice{display:grid;grid-template-columns:auto minmax(0,1fr);gap:0 var(--space-2);align-items:baseline;margin:var(--space-2) 0}.scope-choice label{margin:0}.scope-choice .help{grid-column:2;margin:0}
.access-tokens-box{position:relative}.created-token{border-color:var(--resolved-fg)}.created-token>header{background:#ecf4ee}.access-tokens td:last-child{text-align:right}.access-tokens .token-name{overflow-wrap:anywhere}
details.confirm{display:inline-block;text-align:left}details.confirm>summary{list-style:none}details.confirm>summary::-webkit-details-marker{display:none}
.confirm-body{margin-top:var(--space-2);padding:var(--space-2) var(--space-3);border:1px solid var(--danger);border-radius:var(--radius);background:var(--surface);max-width:24rem;white-space:normal;overflow-wrap:anywhere}.confirm-body p{margin:0 0 var(--space-2)}.confirm-body form{margin:0}
.notification-level{display:flex;flex-wrap:wrap;gap:var(--space-2);align-items:center;margin:var(--space-1) 0}.notification-level select{flex:1 1 12rem;width:auto;min-width:0}
details.custom-events>summary{cursor:pointer;color:var(--link);font-size:13px}.event-list{columns:2 14rem;margin:var(--space-2) 0}.event-list li{break-inside:avoid;padding:2px 0;display:flex;gap:var(--space-2);align-items:baseline}.event-list label{margin:0}table.access-tokens{min-width:40rem}.notification-list .title{display:block}
.date-fields{display:flex;flex-wrap:wrap;gap:0 var(--space-3)}.date-fields>div{flex:1 1 12rem;min-width:0}
.milestone-progress-cell{flex:0 1 16rem;min-width:12rem}.milestone-progress-cell .milestone-progress{width:100%;margin:0}
.status-upcoming{background:var(--closed-bg);color:var(--closed-fg)}.issuable-header .milestone-actions{margin-left:auto}.milestone-fields .progress-text{display:block}
.issuable-actions{margin-left:auto;display:flex;flex-wrap:wrap;gap:var(--space-2);align-items:center}.issuable-actions form{margin:0}
.issuable-filters{margin:var(--space-3) 0;padding:var(--space-2) var(--space-3);border:1px solid var(--border);border-radius:var(--radius);background:var(--surface)}
.issuable-filters .filter-fields{display:grid;grid-template-columns:repeat(auto-fit,minmax(11rem,1fr));gap:0 var(--space-3)}.issuable-filters label{margin-top:var(--space-2)}
.issuable-filters .filter-search{grid-column:1/-1}.issuable-filters .button-row{margin:var(--space-2) 0 0}
.checkbox-field{display:flex;gap:var(--space-2);align-items:baseline;margin:var(--space-3) 0 0}.checkbox-field input{flex:none}
label.checkbox-label{display:flex;gap:var(--space-2);align-items:center;font-weight:400;margin:0;overflow-wrap:anywhere;min-width:0}.checkbox-field label.checkbox-label{display:block}
fieldset.label-choices{border:0;padding:0;margin:var(--space-3) 0 0;min-width:0}fieldset.label-choices legend{font-weight:600;padding:0;margin-bottom:var(--space-1)}
.checkbox-list{max-height:12rem;overflow:auto;border:1px solid var(--border);border-radius:var(--radius);padding:var(--space-1) var(--space-2);background:#fff}.checkbox-list label.checkbox-label{padding:2px 0}
.markdown-preview{margin:var(--space-2) 0;padding:var(--space-2) var(--space-3);border:1px dashed var(--border);border-radius:var(--radius);background:var(--surface)}.markdown-preview h3{margin:0 0 var(--space-1);font-size:13px;color:var(--muted)}
.new-note{margin:var(--space-4) 0 0;padding-top:var(--space-3);border-top:1px solid var(--border)}.new-note>label:first-of-type{margin-top:0}
.comment-signed-out,.comment-locked{margin:var(--space-4) 0 0;padding:var(--space-3);border:1px solid var(--border);border-radius:var(--radius);background:var(--subtle);text-align:center}
details.sidebar-edit{padding:var(--space-2) 0;border-bottom:1px solid var(--border)}details.sidebar-edit>summary{list-style:none;width:100%;text-align:center}
details.sidebar-edit>summary::-webkit-details-marker{display:none}details.sidebar-edit[open]>summary{background:var(--subtle)}details.sidebar-edit form>label:first-of-type{margin-top:var(--space-2)}
.incident-alert{margin:0 0 var(--space-3);padding:var(--space-2) var(--space-3);border:1px solid var(--triggered-bg);border-left:4px solid var(--triggered-fg);border-radius:var(--radius);background:var(--surface)}
.incident-alert h2{font-size:15px;margin:0}.incident-alert dl.fields{margin:var(--space-2) 0 0}
.issue-form{max-width:52rem}.issuable-sidebar>details.sidebar-edit{grid-column:1/-1}fieldset.label-choices .checkbox-field{margin-top:0}
.snippet-file-fields{border:1px solid var(--border);border-radius:var(--radius);padding:0 var(--space-3) var(--space-3);margin:var(--space-3) 0;min-width:0;background:var(--surface)}
.snippet-file-fields legend,.snippet-visibility legend{font-weight:600;padding:0 var(--space-1)}.snippet-visibility{border:0;padding:0;margin:var(--space-3) 0 0;min-width:0}.snippet-visibility legend{padding:0}
textarea.code-input{font-family:var(--font-mono);font-size:13px;white-space:pre;overflow-wrap:normal;overflow-x:auto}
.visibility-choice{display:grid;grid-template-columns:auto minmax(0,1fr);gap:0 var(--space-2);align-items:baseline;margin:var(--space-2) 0}.visibility-choice label{margin:0}.visibility-choice .help{grid-column:2;margin:0}
.header-row+.empty-state{margin-top:var(--space-3)}details.add-file{margin:var(--space-3) 0}details.add-file>summary{list-style:none}details.add-file>summary::-webkit-details-marker{display:none}details.add-file[open]>summary{display:none}
.file-count{white-space:nowrap}.button-row.centered{justify-content:center}.issuable-header .snippet-actions{margin-left:auto}
.impersonation-banner{display:flex;flex-wrap:wrap;gap:var(--space-2) var(--space-3);align-items:center;justify-content:center;padding:var(--space-2) var(--space-3);background:#fdf1dd;color:#8f4700;border-bottom:1px solid #e9be74;overflow-wrap:anywhere}.impersonation-banner form{margin:0}
.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(10rem,1fr));gap:var(--space-3);margin:var(--space-3) 0}.stat{display:flex;flex-direction:column;padding:var(--space-3);margin:0;color:var(--text)}
.stat:hover{text-decoration:none;background:var(--subtle)}.stat-count{font-size:24px;font-weight:700;font-variant-numeric:tabular-nums}.stat-label{color:var(--muted)}
.overview-lists{display:grid;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr));gap:0 var(--space-4)}.overview-lists section{min-width:0}
.user-summary{display:flex;gap:var(--space-2);align-items:center;min-width:14rem}.user-summary .grow{min-width:0;overflow-wrap:anywhere}.user-summary .title{font-weight:600}.user-summary .meta{color:var(--muted);font-size:13px}
.admin-user-header{margin:var(--space-2) 0 var(--space-3)}.impersonation-refused{margin:0}
.failed-jobs>li{align-items:flex-start}.job-error{margin:var(--space-1) 0 0;max-height:12rem;white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px}
.mr-actions{margin-left:auto;display:flex;flex-wrap:wrap;gap:var(--space-2);align-items:center}.mr-actions form{margin:0}
.mr-form{max-width:52rem}.mr-form-grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));gap:0 var(--space-4)}
fieldset.mr-choices{border:0;padding:0;margin:var(--space-3) 0 0;min-width:0}fieldset.mr-choices legend{font-weight:600;padding:0;margin-bottom:var(--space-1)}
.mr-checkbox-list{max-height:12rem;overflow:auto;border:1px solid var(--border);border-radius:var(--radius);padding:var(--space-1) var(--space-2);background:#fff}
label.mr-checkbox-label{display:flex;gap:var(--space-2);align-items:center;font-weight:400;margin:0;padding:2px 0;overflow-wrap:anywhere;min-width:0}
.mr-checkbox-field{display:flex;gap:var(--space-2);align-items:baseline;margin:var(--space-2) 0 0}.mr-checkbox-field input{flex:none}.mr-checkbox-field label.mr-checkbox-label{display:block}
.mr-compare-fields{display:grid;grid-template-columns:repeat(auto-fit,minmax(16rem,1fr));gap:0 var(--space-4)}.mr-compare-fields fieldset{padding:var(--space-3);border:1px solid var(--border);border-radius:var(--radius);background:var(--surface)}
.mr-project-name{margin:var(--space-1) 0 0;color:var(--muted);overflow-wrap:anywhere}.mr-compare-line{display:flex;flex-wrap:wrap;gap:var(--space-2);align-items:center;overflow-wrap:anywhere}
.mr-widget>header h2{font-size:15px;margin:0;font-weight:400}.mr-widget.blocked{border-left:4px solid var(--danger)}.mr-widget.ready{border-left:4px solid var(--resolved-fg)}
.mr-widget.merged{border-left:4px solid var(--merged-fg)}.mr-widget.closed{border-left:4px solid var(--closed-fg)}.mr-widget .merge-status,.mr-widget .body>p{margin:var(--space-1) 0}
.mr-checks li{padding:2px 0;display:flex;gap:var(--space-2);align-items:baseline}.mr-check-state{flex:none;min-width:6.5rem;text-align:center}.mr-check.passed .mr-check-state{background:var(--resolved-bg);color:var(--resolved-fg)}
.mr-check.failed .mr-check-state{background:var(--triggered-bg);color:var(--triggered-fg)}.mr-check.failed{font-weight:600}
.mr-merge-form{margin-top:var(--space-3);padding-top:var(--space-2);border-top:1px solid var(--border)}.mr-commit-messages{margin:var(--space-2) 0}.mr-commit-messages>summary{cursor:pointer;color:var(--link)}
.mr-commit-messages textarea{font-family:var(--font-mono);font-size:13px}
.discussion li.thread-note{display:block}.mr-thread{border:1px solid var(--border);border-radius:var(--radius);background:var(--surface);padding:0 var(--space-3) var(--space-2)}
.mr-thread.resolved{background:var(--subtle)}.mr-thread-context{padding:var(--space-2) 0;border-bottom:1px solid var(--border);color:var(--muted);overflow-wrap:anywhere}
.mr-thread ol.notes{list-style:none;margin:0;padding:0}.mr-thread li.note{display:flex;gap:var(--space-2);margin:var(--space-2) 0}
.mr-thread-actions{display:flex;flex-wrap:wrap;gap:var(--space-2);align-items:flex-start}.mr-thread-actions form{margin:0}.mr-thread-actions>form.inline{order:-1}
details.mr-reply{flex:1 1 12rem;min-width:0}details.mr-reply>summary{list-style:none;display:inline-block}details.mr-reply>summary::-webkit-details-marker{display:none}
.mr-note-form label{margin-top:var(--space-2)}.mr-new-note{margin:var(--space-4) 0 0;padding-top:var(--space-3);border-top:1px solid var(--border)}
.mr-comment-signed-out{margin:var(--space-4) 0 0;padding:var(--space-3);border:1px solid var(--border);border-radius:var(--radius);background:var(--subtle);text-align:center}
.diff td.line{position:relative}.add-diff-note{position:absolute;left:-2px;top:1px;width:18px;height:18px;line-height:16px;text-align:center;border-radius:50%;
background:var(--primary);color:#fff;font-weight:700;opacity:0;z-index:1}.add-diff-note:hover{text-decoration:none;color:#fff}
.diff tr:hover .add-diff-note,.add-diff-note:focus{opacity:1}@media (hover:none){.add-diff-note{opacity:.6}}
.diff tr.diff-notes-row>td.diff-notes-cell{white-space:normal;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:14px;line-height:1.5;padding:var(--space-2);background:var(--page);border-top:1px solid var(--border);border-bottom:1px solid var(--border)}
.code.diff{container-type:inline-size}.diff-notes-cell>div{position:sticky;left:var(--space-2);max-width:calc(100cqw - var(--space-4))}
.diff-notes-cell .mr-thread+.mr-thread,.diff-notes-cell .mr-thread+.mr-line-form{margin-top:var(--space-2)}.diff-notes-cell .note-text{white-space:normal}
.badge.success{background:var(--resolved-bg);color:var(--resolved-fg)}.badge.danger{background:var(--triggered-bg);color:var(--triggered-fg)}.badge.warning{background:#fdf1dd;color:#8f4700}
.hook-list{list-style:none;margin:0;padding:0}.hook-list>li{display:flex;flex-wrap:wrap;justify-content:space-between;gap:var(--space-2);padding:var(--space-3) 0;border-bottom:1px solid var(--border)}.hook-list>li:last-child{border-bottom:0}.hook-list .button-row{margin:0}
.hook-summary{flex:1 1 20rem;min-width:0}.hook-url{overflow-wrap:anywhere}.hook-badges{display:flex;flex-wrap:wrap;gap:var(--space-1);margin-top:var(--space-1)}.test-hook>summary.button{color:var(--text)}.test-hook>summary.button:hover,.test-hook[open]>summary.button{background:var(--subtle)}
details.add-webhook{margin:var(--space-3) 0}details.add-webhook>summary{list-style:none;display:inline-block}details.add-webhook>summary::-webkit-details-marker{display:none}details.add-webhook[open]>summary{display:none}
fieldset.branch-filter{margin:0 0 var(--space-2) var(--space-5)}.hook-event{display:grid;grid-template-columns:auto 1fr;gap:var(--space-1) var(--space-3)}.hook-event dt{font-weight:600}.hook-event dd{margin:0;overflow-wrap:anywhere}
pre.hook-body,pre.hook-headers{white-space:pre-wrap;overflow-wrap:anywhere;max-height:32rem}
`
