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

/** What a `.gitattributes` says of the paths it matches (linguist's overrides); the last matching line wins. */
export interface LinguistRule {
  pattern: RegExp
  vendored?: boolean
  documentation?: boolean
  generated?: boolean
  language?: string
}

const KNOWN_LANGUAGES = new Map(
  [...new Set([...Object.values(BY_EXTENSION), ...Object.values(BY_FILENAME)])].map((name) => [name.toLowerCase(), name]),
)

/** A gitattributes pattern as a regular expression over paths from the root (gitignore rules, without negation). */
function patternRegExp(pattern: string): RegExp {
  const anchored = pattern.startsWith('/') || pattern.slice(0, -1).includes('/')
  const body = pattern.replace(/^\//, '')
  let source = ''
  for (let at = 0; at < body.length; at++) {
    const char = body[at]
    if (body.startsWith('**/', at)) {
      source += '(?:.*/)?'
      at += 2
    } else if (body.startsWith('/**', at) && at + 3 === body.length) {
      source += '/.*'
      at += 2
    } else if (char === '*') source += '[^/]*'
    else if (char === '?') source += '[^/]'
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`${anchored ? '^' : '(?:^|/)'}${source}$`)
}

/** The linguist overrides of a `.gitattributes` file. */
export function parseLinguistRules(text: string): LinguistRule[] {
  const rules: LinguistRule[] = []
  for (const line of text.split('\n')) {
    const [pattern, ...attributes] = line.trim().split(/\s+/)
    if (!pattern || pattern.startsWith('#') || pattern.startsWith('!')) continue
    const rule: LinguistRule = { pattern: patternRegExp(pattern) }
    for (const attribute of attributes) {
      const match = /^([-!]?)linguist-(vendored|documentation|generated|language)(?:=(.*))?$/.exec(attribute)
      if (!match) continue
      const [, sign, name, value] = match
      if (name === 'language') {
        if (value) rule.language = KNOWN_LANGUAGES.get(value.toLowerCase()) ?? value
      } else rule[name as 'vendored' | 'documentation' | 'generated'] = sign === '' && value !== 'false'
    }
    if (Object.keys(rule).length > 1) rules.push(rule)
  }
  return rules
}

/**
 * The language of a file at a path, or null when it is not code linguist counts: vendored, documentation or
 * generated (by linguist's lists or the repository's `.gitattributes`), or of no programming or markup language.
 */
export function languageOfPath(path: string, rules: readonly LinguistRule[] = []): string | null {
  const override: Omit<LinguistRule, 'pattern'> = {}
  for (const rule of rules) if (rule.pattern.test(path)) Object.assign(override, { ...rule, pattern: undefined })
  if (override.generated) return null
  if (override.vendored ?? VENDORED.some((pattern) => pattern.test(path))) return null
  if (override.documentation ?? DOCUMENTATION.some((pattern) => pattern.test(path))) return null
  if (override.language) return override.language
  const name = path.slice(path.lastIndexOf('/') + 1)
  const byName = BY_FILENAME[name]
  if (byName) return byName
  const dot = name.lastIndexOf('.')
  if (dot <= 0 && !name.startsWith('.')) return null
  return BY_EXTENSION[name.slice(dot).toLowerCase()] ?? null
}
