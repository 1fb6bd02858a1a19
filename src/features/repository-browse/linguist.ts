/**
 * Which language a file is written in, by its name, as far as linguist (go-enry in Gitaly) tells it without reading
 * the content. Only programming and markup languages count, as in Gitaly's CommitLanguages; data (JSON, YAML) and
 * prose (Markdown, text) do not.
 */

const BY_EXTENSION: Record<string, string> = {}
const BY_FILENAME: Record<string, string> = {}

function language(name: string, extensions: string[], filenames: string[] = []) {
  for (const extension of extensions) BY_EXTENSION[extension] = name
  for (const filename of filenames) BY_FILENAME[filename] = name
}

language('JavaScript', ['.js', '.mjs', '.cjs', '.jsx', '._js', '.es6', '.jsm'], ['Jakefile'])
language('TypeScript', ['.ts', '.mts', '.cts'])
language('TSX', ['.tsx'])
language('CoffeeScript', ['.coffee'], ['Cakefile'])
language(
  'Ruby',
  ['.rb', '.rake', '.gemspec', '.ru', '.rbw', '.builder', '.jbuilder', '.podspec', '.thor'],
  ['Rakefile', 'Gemfile', 'Guardfile', 'Podfile', 'Vagrantfile', 'Capfile', 'Fastfile', 'Brewfile'],
)
language('Python', ['.py', '.pyw', '.pyi', '.pyx', '.pxd', '.gyp'], ['SConstruct', 'SConscript', 'BUILD.bazel', 'WORKSPACE'])
language('Go', ['.go'])
language('Rust', ['.rs'])
language('C', ['.c', '.h', '.cats', '.idc'])
language('C++', ['.cpp', '.cc', '.cxx', '.c++', '.hpp', '.hh', '.hxx', '.h++', '.inl', '.ipp', '.tcc', '.tpp'])
language('C#', ['.cs', '.csx'])
language('F#', ['.fs', '.fsi', '.fsx'])
language('Java', ['.java', '.jav'])
language('Kotlin', ['.kt', '.kts', '.ktm'])
language('Scala', ['.scala', '.sc', '.sbt'])
language('Groovy', ['.groovy', '.gvy', '.gradle'], ['Jenkinsfile'])
language('Clojure', ['.clj', '.cljs', '.cljc', '.edn'])
language('Swift', ['.swift'])
language('Objective-C', ['.m'])
language('Objective-C++', ['.mm'])
language('PHP', ['.php', '.phtml', '.php3', '.php4', '.php5', '.phps', '.phpt'])
language('Perl', ['.pl', '.pm', '.t', '.psgi'])
language('Raku', ['.raku', '.rakumod', '.p6', '.pm6'])
language('Shell', ['.sh', '.bash', '.zsh', '.ksh', '.bats', '.command', '.tmux'], ['.bashrc', '.zshrc', '.profile', 'PKGBUILD'])
language('PowerShell', ['.ps1', '.psm1', '.psd1'])
language('Batchfile', ['.bat', '.cmd'])
language('Lua', ['.lua'])
language('R', ['.r', '.rd', '.rsx'])
language('Julia', ['.jl'])
language('Haskell', ['.hs', '.hs-boot', '.hsc'])
language('Elm', ['.elm'])
language('OCaml', ['.ml', '.mli', '.mll', '.mly'])
language('Erlang', ['.erl', '.hrl', '.escript'], ['rebar.config'])
language('Elixir', ['.ex', '.exs'])
language('Dart', ['.dart'])
language('Zig', ['.zig'])
language('Nim', ['.nim', '.nims', '.nimble'])
language('Crystal', ['.cr'])
language('D', ['.d', '.di'])
language('Fortran', ['.f', '.f77', '.for', '.fpp'])
language('Fortran Free Form', ['.f90', '.f95', '.f03', '.f08'])
language('Pascal', ['.pas', '.dpr', '.lpr', '.pp'])
language('Visual Basic .NET', ['.vb', '.vbs'])
language('Assembly', ['.asm', '.nasm'])
language('Unix Assembly', ['.s'])
language('Common Lisp', ['.lisp', '.lsp', '.cl', '.asd'])
language('Emacs Lisp', ['.el'], ['.emacs'])
language('Scheme', ['.scm', '.ss', '.sld'])
language('Racket', ['.rkt', '.rktl'])
language('Vim Script', ['.vim', '.vimrc'], ['.vimrc', '_vimrc'])
language('Makefile', ['.mk', '.mak', '.make'], ['Makefile', 'makefile', 'GNUmakefile', 'Kbuild'])
language('CMake', ['.cmake'], ['CMakeLists.txt'])
language('Dockerfile', ['.dockerfile'], ['Dockerfile', 'Containerfile'])
language('HCL', ['.hcl', '.tf', '.tfvars', '.nomad'])
language('Nix', ['.nix'])
language('Starlark', ['.bzl', '.star'], ['BUILD', 'Tiltfile'])
language('Solidity', ['.sol'])
language('Verilog', ['.v', '.veo'])
language('SystemVerilog', ['.sv', '.svh'])
language('VHDL', ['.vhd', '.vhdl'])
language('GLSL', ['.glsl', '.vert', '.frag', '.geom'])
language('HLSL', ['.hlsl', '.fx'])
language('Cuda', ['.cu', '.cuh'])
language('Smalltalk', ['.st'])
language('Tcl', ['.tcl', '.tm'])
language('Awk', ['.awk'])
language('PLpgSQL', ['.pgsql', '.plpgsql'])
language('PLSQL', ['.pls', '.plb', '.pck', '.pkb', '.pks'])
language('Jupyter Notebook', ['.ipynb'])
language('Svelte', ['.svelte'])
language('Vue', ['.vue'])
language('HTML', ['.html', '.htm', '.xhtml', '.inc'])
language('HTML+ERB', ['.erb', '.rhtml'])
language('Haml', ['.haml'])
language('Slim', ['.slim'])
language('Pug', ['.pug', '.jade'])
language('Handlebars', ['.hbs', '.handlebars'])
language('Twig', ['.twig'])
language('CSS', ['.css'])
language('SCSS', ['.scss'])
language('Sass', ['.sass'])
language('Less', ['.less'])
language('Stylus', ['.styl'])
language('TeX', ['.tex', '.sty', '.cls', '.ltx'])

/** Vendored code (linguist's vendor.yml, in part): not the project's own. */
const VENDORED = [
  /(^|\/)node_modules\//,
  /(^|\/)bower_components\//,
  /(^|\/)vendor\//,
  /(^|\/)[Vv]endors?\//,
  /(^|\/)third[-_]?party\//,
  /(^|\/)3rd[-_]?party\//,
  /(^|\/)extern(al)?\//,
  /(^|\/)deps\//,
  /(^|\/)dist\//,
  /(^|\/)Godeps\//,
  /(^|\/)Pods\//,
  /(^|\/)Carthage\//,
  /(^|\/)\.yarn\//,
  /(^|\/)cache\//,
  /\.min\.(js|css)$/,
  /(^|\/)jquery([^.]*)\.js$/,
  /(^|\/)bootstrap([^/.]*)\.(js|css|less|scss|styl)$/,
  /(^|\/)gradlew(\.bat)?$/,
  /(^|\/)mvnw(\.cmd)?$/,
]

/** Documentation (linguist's documentation.yml): not counted as code. */
const DOCUMENTATION = [
  /^[Dd]ocs?\//,
  /(^|\/)[Dd]ocumentation\//,
  /(^|\/)[Gg]roovydoc\//,
  /(^|\/)[Jj]avadoc\//,
  /^[Mm]an\//,
  /^[Ee]xamples\//,
  /^[Ss]amples\//,
  /(^|\/)CHANGE(S|LOG)?(\.|$)/i,
  /(^|\/)CONTRIBUTING(\.|$)/i,
  /(^|\/)COPYING(\.|$)/i,
  /(^|\/)INSTALL(\.|$)/i,
  /(^|\/)LICEN[CS]E(\.|$)/i,
  /(^|\/)README(\.|$)/i,
]

/** The language of a file at a path, or null when it is not code linguist counts (or is vendored or documentation). */
export function languageOfPath(path: string): string | null {
  if (VENDORED.some((pattern) => pattern.test(path)) || DOCUMENTATION.some((pattern) => pattern.test(path))) return null
  const name = path.slice(path.lastIndexOf('/') + 1)
  const byName = BY_FILENAME[name]
  if (byName) return byName
  const dot = name.lastIndexOf('.')
  if (dot <= 0 && !name.startsWith('.')) return null
  return BY_EXTENSION[name.slice(dot).toLowerCase()] ?? null
}
