/**
 * A command line as bash will run it: every simple command in it (inside pipelines, lists, `!`,
 * if/while/until/for/case, `{ …; }`, `( … )`, function bodies, `time`, `coproc`, and inside command
 * and process substitutions), with its words as bash will see them. What the tree cannot account
 * for is said, in two degrees:
 * - opaque: a part whose text is only known when it runs (a substitution, a here-document whose
 *   body has expansions). No allow covers the line; deny and ask rules still see every command.
 * - unseen: something that could run a program no rule can see (a syntax error, a program name
 *   that is not a fixed word, arithmetic on a variable, whose value bash evaluates as code, `${!x}`,
 *   `${x@P}`). Deny and ask lists apply to the line as if it ran what they name.
 * Every node type the walk does not know is unseen, so a gap in this file asks rather than allows.
 */
import { BashSyntaxError, nodeType, parseBash, type ShNode } from './syntax.ts';
import { type ParsedLine, staticWord, type Word } from './words.ts';

export type { ParsedLine, SimpleCommand, Word } from './words.ts';

/** Walking the tree costs about 0.1 ms a node on a loaded machine: a line with more commands is unseen. */
const MAX_COMMANDS = 1000;
const NUMBER = /^(0[xX][0-9a-fA-F]+|[0-9]+(#[0-9a-zA-Z@_]+)?)$/;
const ARITH_TEST = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

class Walk {
  readonly out: ParsedLine = { commands: [], opaque: [], unseen: [] };
  private readonly src: Buffer;
  constructor(src: Buffer) {
    this.src = src;
  }

  // Positions are byte offsets.
  private text = (from: number, to: number) => this.src.subarray(from, to).toString();
  private textOf = (n: ShNode) => this.text(n.Pos().Offset(), n.End().Offset());
  private opaque = (why: string) => this.out.opaque.includes(why) || this.out.opaque.push(why);
  private unseen = (why: string) => this.out.unseen.includes(why) || this.out.unseen.push(why);

  stmts(list: ShNode[] | null | undefined) {
    for (const s of list ?? []) {
      if (this.out.commands.length >= MAX_COMMANDS) {
        this.unseen(`it has over ${MAX_COMMANDS} commands to check`);
        return;
      }
      this.stmt(s);
    }
  }

  stmt(s: ShNode | null | undefined) {
    if (!s) return;
    // Every field read builds a JavaScript wrapper of the Go value: each is read once.
    const redirects: string[] = [];
    for (const r of (s.Redirs ?? []) as ShNode[]) {
      const word = r.Word as ShNode | null;
      const hdoc = r.Hdoc as ShNode | null;
      // bash itself opens a network connection for /dev/tcp/HOST/PORT and /dev/udp/HOST/PORT.
      if (word && /^\/dev\/(tcp|udp)\//.test(this.wordOf(word).value ?? ''))
        this.opaque('a redirection to /dev/tcp or /dev/udp (a network connection)');
      if (hdoc) {
        if (this.word(hdoc).some((t) => t !== 'Lit')) this.opaque('a here-document whose body has expansions');
        redirects.push(this.text(r.Pos().Offset(), (word as ShNode).End().Offset()));
      } else redirects.push(this.textOf(r));
    }
    const cmd = s.Cmd as ShNode | null;
    if (cmd) this.command(cmd, redirects);
  }

  private command(c: ShNode, redirects: string[]) {
    const t = nodeType(c);
    switch (t) {
      case 'CallExpr': {
        const assigns = (c.Assigns ?? []) as ShNode[];
        for (const a of assigns) this.assign(a);
        const words = ((c.Args ?? []) as ShNode[]).map((w) => this.wordOf(w));
        this.out.commands.push({ words, assigns: assigns.map((a) => this.textOf(a)), redirects });
        return;
      }
      case 'DeclClause': {
        // declare, local, export, readonly, typeset, nameref: builtins that assign.
        const variant = c.Variant.Value as string;
        const words: Word[] = [{ value: variant, text: variant }];
        for (const a of (c.Args ?? []) as ShNode[]) {
          const w = this.assign(a);
          const naked = a.Naked as boolean;
          const name = a.Name?.Value as string | undefined;
          let value: string | undefined;
          if (naked) value = w ? w.value : name;
          else if (!a.Index && !a.Array && (!w || w.value !== undefined))
            value = `${name}${a.Append ? '+=' : '='}${w?.value ?? ''}`;
          // A name that is not a fixed word, or the integer and nameref attributes (which make later
          // assignments and expansions evaluate values as arithmetic or as names), can run code.
          if (naked && (value === undefined || (value.includes('[') && /[$`]/.test(value))))
            this.unseen(`${variant} with a name that is not a fixed word`);
          if (naked && value !== undefined && /^[-+][A-Za-z]*[in]/.test(value))
            this.unseen(`${variant} ${value}, whose values are evaluated as arithmetic or names`);
          words.push(value === undefined ? { text: this.textOf(a) } : { value, text: value });
        }
        this.out.commands.push({ words, assigns: [variant], redirects });
        return;
      }
      case 'LetClause':
        for (const x of (c.Exprs ?? []) as ShNode[]) this.arithm(x);
        this.unseen('let evaluates arithmetic, which runs code held in variables');
        this.out.commands.push({ words: [{ value: 'let', text: 'let' }], assigns: ['let'], redirects });
        return;
      case 'BinaryCmd':
        this.stmt(c.X);
        this.stmt(c.Y);
        return;
      case 'Subshell':
      case 'Block':
        this.stmts(c.Stmts);
        return;
      case 'IfClause':
        this.stmts(c.Cond);
        this.stmts(c.Then);
        if (c.Else) this.command(c.Else, []);
        return;
      case 'WhileClause':
        this.stmts(c.Cond);
        this.stmts(c.Do);
        return;
      case 'ForClause': {
        const loop = c.Loop as ShNode;
        if (nodeType(loop) === 'WordIter') for (const w of (loop.Items ?? []) as ShNode[]) this.word(w);
        else for (const x of [loop.Init, loop.Cond, loop.Post]) if (x) this.arithm(x);
        this.stmts(c.Do);
        return;
      }
      case 'CaseClause':
        this.word(c.Word);
        for (const item of (c.Items ?? []) as ShNode[]) {
          for (const p of (item.Patterns ?? []) as ShNode[]) this.word(p);
          this.stmts(item.Stmts);
        }
        return;
      case 'FuncDecl':
        this.stmt(c.Body);
        return;
      case 'ArithmCmd':
        this.arithm(c.X);
        return;
      case 'TestClause':
        this.test(c.X);
        return;
      case 'TimeClause':
      case 'CoprocClause':
        this.stmt(c.Stmt);
        return;
      default:
        this.unseen(`a ${t} construct`);
    }
  }

  /** Walks an assignment; answers its value as a word, if it has one. */
  private assign(a: ShNode): Word | undefined {
    const index = a.Index as ShNode | null;
    const value = a.Value as ShNode | null;
    if (index) this.arithm(index);
    for (const e of (a.Array?.Elems ?? []) as ShNode[]) {
      const ei = e.Index as ShNode | null;
      const ev = e.Value as ShNode | null;
      if (ei) this.arithm(ei);
      if (ev) this.word(ev);
    }
    return value ? this.wordOf(value) : undefined;
  }

  /** A word's value, walked for what it contains; the text as written only when it is not static. */
  private wordOf(w: ShNode): Word {
    const parts = (w.Parts ?? []) as ShNode[];
    const value = staticWord(
      parts,
      parts.map((p) => this.part(p)),
    );
    return value === undefined ? { text: this.textOf(w) } : { value, text: value };
  }

  /** Walks a word for what it contains; answers the type of each part. */
  word(w: ShNode | null | undefined): string[] {
    return w ? ((w.Parts ?? []) as ShNode[]).map((p) => this.part(p)) : [];
  }

  private part(p: ShNode): string {
    const t = nodeType(p);
    switch (t) {
      case 'Lit':
      case 'SglQuoted':
      case 'ExtGlob':
        break;
      case 'DblQuoted':
        for (const q of (p.Parts ?? []) as ShNode[]) this.part(q);
        break;
      case 'BraceExp':
        for (const w of (p.Elems ?? []) as ShNode[]) this.word(w);
        break;
      case 'CmdSubst':
        this.opaque('a command substitution');
        this.stmts(p.Stmts);
        break;
      case 'ProcSubst':
        this.opaque('a process substitution');
        this.stmts(p.Stmts);
        break;
      case 'ArithmExp':
        this.arithm(p.X);
        break;
      case 'ParamExp':
        this.param(p);
        break;
      default:
        this.unseen(`a ${t} expansion`);
    }
    return t;
  }

  private param(p: ShNode) {
    // ${!x} looks up the variable named by x's value, subscript (and its arithmetic) included;
    // ${x@P} expands x's value as a prompt, command substitutions included.
    if (p.Excl) this.unseen('an indirect expansion (! before a name)');
    if (/@[A-Za-z]\}$/.test(this.textOf(p))) this.unseen('a parameter transformation (@P and the like)');
    if (p.Index) {
      const i = p.Index as ShNode;
      const star = nodeType(i) === 'Word' && /^[@*]$/.test(this.textOf(i));
      if (!star) this.arithm(i);
    }
    if (p.Slice) for (const x of [p.Slice.Offset, p.Slice.Length]) if (x) this.arithm(x);
    if (p.Repl) {
      this.word(p.Repl.Orig);
      this.word(p.Repl.With);
    }
    if (p.Exp) this.word(p.Exp.Word);
  }

  /** Arithmetic evaluates the value of every variable it names as an expression, `a[$(cmd)]` included. */
  private arithm(x: ShNode) {
    const t = nodeType(x);
    switch (t) {
      case 'BinaryArithm':
        this.arithm(x.X);
        this.arithm(x.Y);
        return;
      case 'UnaryArithm':
      case 'ParenArithm':
        this.arithm(x.X);
        return;
      case 'Word': {
        const parts = (x.Parts ?? []) as ShNode[];
        if (!(parts.length === 1 && nodeType(parts[0] as ShNode) === 'Lit' && NUMBER.test(parts[0]?.Value)))
          this.unseen('arithmetic on a variable, whose value bash evaluates as code');
        this.word(x);
        return;
      }
      default:
        this.unseen(`a ${t} in arithmetic`);
    }
  }

  /** In [[ ]], -eq and the like compare arithmetic, and -v and -R take a name, subscript included. */
  private test(x: ShNode) {
    const t = nodeType(x);
    switch (t) {
      case 'BinaryTest': {
        const op = this.text(x.X.End().Offset(), x.Y.Pos().Offset()).trim();
        if (ARITH_TEST.has(op)) for (const side of [x.X, x.Y]) this.arithm(side);
        else {
          this.test(x.X);
          this.test(x.Y);
        }
        return;
      }
      case 'UnaryTest': {
        const op = this.text(x.Pos().Offset(), x.X.Pos().Offset()).trim();
        if (op === '-v' || op === '-R') this.unseen(`[[ ${op} ]], which evaluates a subscript as arithmetic`);
        this.test(x.X);
        return;
      }
      case 'ParenTest':
        this.test(x.X);
        return;
      case 'Word':
        this.word(x);
        return;
      default:
        this.unseen(`a ${t} in [[ ]]`);
    }
  }
}

/** The simple commands of a command line and what in it cannot be seen through. */
export function parseLine(src: string): ParsedLine {
  let file: ShNode;
  try {
    file = parseBash(src);
  } catch (e) {
    if (!(e instanceof BashSyntaxError)) throw e;
    return { commands: [], opaque: [], unseen: [`it does not parse as bash (${e.message})`] };
  }
  const w = new Walk(Buffer.from(src));
  w.stmts(file.Stmts);
  return w.out;
}
