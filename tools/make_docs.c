/* make_docs.c - the manual page and the shell completions, made at build
 * time from what the program itself says, so they cannot drift from it:
 *
 *   make_docs OUT_DIR VERSION
 *     OUT_DIR/skinview.1      the manual: every option (--help, grouped as
 *                             it groups them), exit status (--help), the
 *                             window's keys and the environment
 *                             (helptext.h)
 *     OUT_DIR/skinview.bash   bash completion
 *     OUT_DIR/_skinview       zsh completion
 *     OUT_DIR/skinview.fish   fish completion
 *
 * The completions offer the options, the choices of an option whose value
 * is a list of words (--skinning linear|dq), files for a FILE value,
 * folders for DIR, and for N|NAME (--anim) and BONE (--weights) the clip
 * and bone names of the model on the command line, read from
 * `skinview MODEL --list --json`. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helptext.h"
#include "options.h"

#define MAX_ENTRIES 256

/* What a value completes to. */
typedef enum value_kind {
    VALUE_NONE,    /* a flag */
    VALUE_OTHER,   /* a number, a colour, ...: nothing to offer */
    VALUE_CHOICES, /* one of the words in `value`, split at '|' */
    VALUE_FILE,
    VALUE_DIR,
    VALUE_CLIP, /* the model's clip names */
    VALUE_BONE, /* the model's bone names */
} value_kind;

typedef struct entry {
    char *name;  /* "--anim", or an operand ("MODEL") */
    char *value; /* "N|NAME", or NULL */
    char *help;  /* its lines joined with spaces */
    char *group; /* the --help group it is in, or NULL */
    value_kind kind;
} entry;

typedef struct help {
    char *usage; /* after "usage: " */
    entry entries[MAX_ENTRIES];
    int count;
    char *exit_status; /* after "exit status: ", lines joined */
} help;

static char *join(char *a, const char *b)
{
    size_t la = a ? strlen(a) : 0, lb = strlen(b);
    char *r = realloc(a, la + lb + 2);
    if (!r) exit(9);
    if (la) r[la++] = ' ';
    memcpy(r + la, b, lb + 1);
    return r;
}

static char *trimmed(const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s)) s++, n--;
    while (n && isspace((unsigned char)s[n - 1])) n--;
    return strndup(s, n);
}

static int all_caps(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isupper((unsigned char)s[i]) && s[i] != '_') return 0;
    return n > 0;
}

static value_kind kind_of(const char *value)
{
    if (!value) return VALUE_NONE;
    if (strcmp(value, "N|NAME") == 0) return VALUE_CLIP;
    if (strcmp(value, "BONE") == 0) return VALUE_BONE;
    if (strcmp(value, "DIR") == 0) return VALUE_DIR;
    if (strstr(value, "FILE") || strstr(value, ".png") || strstr(value, ".obj") || strstr(value, ".gif"))
        return VALUE_FILE;
    if (strchr(value, '|')) {
        /* Words, not placeholders (N|NAME): none all capitals. */
        const char *part = value;
        for (;;) {
            const char *bar = strchr(part, '|');
            size_t n = bar ? (size_t)(bar - part) : strlen(part);
            if (all_caps(part, n)) return VALUE_OTHER;
            if (!bar) break;
            part = bar + 1;
        }
        return VALUE_CHOICES;
    }
    return VALUE_OTHER;
}

/* Reads --help's layout (options.c's options_print_help): "usage: ...";
 * group headings ("views:"); entries "  NAME VALUE   help" whose help
 * goes on in lines indented further (or starts on the next line when the
 * name is long); "exit status: ..." to the end. */
static void parse_help(const char *text, help *h)
{
    memset(h, 0, sizeof *h);
    char *group = NULL;
    int in_exit = 0;
    /* The help's column: where the first line that goes on starts. */
    size_t column = 0;
    for (const char *c = text; *c && !column; c = strchr(c, '\n') ? strchr(c, '\n') + 1 : c + strlen(c)) {
        size_t spaces = strspn(c, " ");
        if (spaces > 2 && c[spaces] != '\n' && c[spaces] != '\0') column = spaces;
    }
    const char *line = text;
    while (*line) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        size_t indent = 0;
        while (indent < n && line[indent] == ' ') indent++;
        if (in_exit) {
            char *t = trimmed(line, n);
            h->exit_status = join(h->exit_status, t);
            free(t);
        } else if (strncmp(line, "usage: ", 7) == 0) {
            h->usage = trimmed(line + 7, n - 7);
        } else if (strncmp(line, "exit status:", 12) == 0) {
            in_exit = 1;
            h->exit_status = trimmed(line + 12, n - 12);
        } else if (indent == 0 && n > 1 && line[n - 1] == ':') {
            free(group); /* the previous group's; each entry has its copy */
            group = trimmed(line, n - 1);
        } else if (indent == 2 && n > 2 && h->count < MAX_ENTRIES) {
            /* The name and value end where the help's column starts (the
             * indentation of the lines that go on), or with the line when
             * they reach past it. */
            size_t head = column > 2 && n > column && line[column - 1] == ' ' ? column : n;
            char *name_value = trimmed(line + 2, head - 2);
            entry *e = &h->entries[h->count++];
            char *space = strchr(name_value, ' ');
            e->name = space ? strndup(name_value, (size_t)(space - name_value)) : strdup(name_value);
            e->value = space ? strdup(space + 1) : NULL;
            free(name_value);
            e->group = group ? strdup(group) : NULL;
            e->kind = kind_of(e->value);
            if (head < n) e->help = trimmed(line + head, n - head);
        } else if (indent > 2 && h->count > 0) {
            char *t = trimmed(line, n);
            entry *e = &h->entries[h->count - 1];
            e->help = join(e->help, t);
            free(t);
        }
        line = end ? end + 1 : line + n;
    }
    free(group);
}

static int is_option(const entry *e)
{
    return e->name[0] == '-';
}

/* --- the manual ------------------------------------------------------------ */

/* Text for roff: backslashes, minus signs, a leading dot or quote. */
static void roff(FILE *f, const char *text)
{
    if (*text == '.' || *text == '\'') fputs("\\&", f);
    for (const char *c = text; *c; c++) {
        if (*c == '\\') fputs("\\e", f);
        else if (*c == '-') fputs("\\-", f);
        else fputc(*c, f);
    }
}

static void write_man(FILE *f, const help *h, const char *version)
{
    fprintf(f, ".\\\" Made by tools/make_docs.c from skinview --help and src/app/helptext.c: edit those.\n");
    fprintf(f, ".TH SKINVIEW 1 \"\" \"skinview %s\" \"User Commands\"\n", version);
    fprintf(f, ".SH NAME\nskinview \\- play the skeletal animation of 3D models, skinned on the GPU\n");
    fprintf(f, ".SH SYNOPSIS\n.B skinview\n");
    const char *usage = h->usage ? h->usage : "";
    if (strncmp(usage, "skinview ", 9) == 0) usage += 9;
    roff(f, usage);
    fprintf(f, "\n.SH DESCRIPTION\n"
               "Skinview opens an animated model (Collada, FBX, MD5, glTF, DirectX .x, SMD, Half-Life 1 MDL, BVH\n"
               "and the other formats Assimp reads, and the DirectX 11 book's .m3d), skins it on the GPU and\n"
               "plays its clips in a window. Without a display, or with an output option, it renders frames\n"
               "headless (PNG, transparent if asked, frame sequences, GIF, video), exports the skinned pose\n"
               "as OBJ, or lists what the file holds; several models per run, each with the same options.\n"
               "Untrusted files are read in a sandboxed child process.\n");
    fprintf(f, ".SH OPTIONS\n");
    const char *group = NULL;
    for (int i = 0; i < h->count; i++) {
        const entry *e = &h->entries[i];
        if (e->group && (!group || strcmp(group, e->group) != 0)) {
            group = e->group;
            fprintf(f, ".SS ");
            for (const char *c = group; *c; c++) fputc(c == group ? toupper((unsigned char)*c) : *c, f);
            fputc('\n', f);
        }
        fprintf(f, ".TP\n%s", is_option(e) ? "\\fB" : "\\fI");
        roff(f, e->name);
        fputs("\\fR", f);
        if (e->value) {
            fputs(" \\fI", f);
            roff(f, e->value);
            fputs("\\fR", f);
        }
        fputc('\n', f);
        roff(f, e->help ? e->help : "");
        fputc('\n', f);
    }
    /* "0 ok, 2 usage, ...": a paragraph for each status; a clause after a
     * ';' that names no status is said after them. */
    fprintf(f, ".SH EXIT STATUS\n");
    char *note = NULL;
    if (h->exit_status) {
        char *text = strdup(h->exit_status);
        char *semicolon = strchr(text, ';');
        if (semicolon && !isdigit((unsigned char)semicolon[1 + strspn(semicolon + 1, " ")])) {
            *semicolon = '\0';
            note = trimmed(semicolon + 1, strlen(semicolon + 1));
        }
        char *save = NULL;
        for (char *item = strtok_r(text, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
            while (*item == ' ') item++;
            char *space = strchr(item, ' ');
            if (!isdigit((unsigned char)*item) || !space) {
                roff(f, item); /* no status of its own: goes on the last one's line */
                fputc('\n', f);
                continue;
            }
            fprintf(f, ".TP\n.B %.*s\n", (int)(space - item), item);
            roff(f, space + 1);
            fputc('\n', f);
        }
        free(text);
    }
    if (note) {
        fprintf(f, ".PP\n");
        if (note[0]) note[0] = (char)toupper((unsigned char)note[0]);
        roff(f, note);
        fprintf(f, ".\n");
        free(note);
    }
    fprintf(f, ".PP\nEvery error is one line on standard error: \\fBskinview: FILE: reason\\fR.\n");
    fprintf(f, ".SH WINDOW KEYS\n");
    for (const skv_help_entry *k = skv_window_keys; k->what; k++) {
        size_t n = strlen(k->what);
        fprintf(f, ".TP\n.B ");
        char *what = strndup(k->what, n && k->what[n - 1] == ':' ? n - 1 : n);
        roff(f, what);
        free(what);
        fputc('\n', f);
        roff(f, k->does);
        fputc('\n', f);
    }
    fprintf(f, ".SH ENVIRONMENT\n");
    for (const skv_help_entry *v = skv_environment; v->what; v++) {
        fprintf(f, ".TP\n.B ");
        roff(f, v->what);
        fputc('\n', f);
        roff(f, v->does);
        fputc('\n', f);
    }
    fprintf(f, ".SH FILES\n.TP\n.I ../share/skinview/assets/%s\nthe model opened when none is given, beside the "
               "installed executable\n",
            SKV_DEFAULT_MODEL);
    fprintf(f, ".SH SEE ALSO\n.BR assimp (1)\n");
}

/* --- completions ----------------------------------------------------------- */

/* The clip or bone names of $1: `skinview MODEL --list --json`, the names
 * between '"KIND":[' and the next section (bones come before the nodes and
 * the clips, clips before warnings). POSIX sh, shared by bash and zsh. */
static void write_names_function(FILE *f, const char *function)
{
    fprintf(f,
            "%s() { # MODEL clips|bones\n"
            "  local json\n"
            "  json=$(command skinview \"$1\" --list --json 2>/dev/null | tr -d '\\n') || return\n"
            "  case $2 in\n"
            "    bones) json=${json#*'\"bones\":['}; json=${json%%%%'\"nodes\":['*}; json=${json%%%%'\"clips\":['*} ;;\n"
            "    clips) json=${json#*'\"clips\":['}; json=${json%%%%'\"warnings\":['*} ;;\n"
            "  esac\n"
            "  printf '%%s\\n' \"$json\" | grep -o '\"index\":[0-9]*,\"name\":\"[^\"]*\"' | sed 's/.*\"name\":\"//; s/\"$//'\n"
            "}\n",
            function);
}

/* Options that take a value, as a shell word list. */
static void value_options(FILE *f, const help *h)
{
    int first = 1;
    for (int i = 0; i < h->count; i++)
        if (is_option(&h->entries[i]) && h->entries[i].kind != VALUE_NONE) {
            fprintf(f, "%s%s", first ? "" : " ", h->entries[i].name);
            first = 0;
        }
}

static void choices(FILE *f, const char *value, const char *separator)
{
    for (const char *c = value; *c; c++) {
        if (*c == '|') fputs(separator, f);
        else fputc(*c, f);
    }
}

/* An option's help for zsh's brackets or fish's quotes: up to its first
 * parenthesis or semicolon, quoted for a single-quoted word of that shell
 * (zsh: no brackets or colons, which _arguments reads). */
static void description(FILE *f, const char *help, int zsh)
{
    const char *c = help ? help : "";
    size_t n = strcspn(c, ";(");
    while (n > 0 && c[n - 1] == ' ') n--;
    if (n > 72) n = 72;
    for (size_t i = 0; i < n; i++) {
        if (zsh && strchr("[]:", c[i])) continue;
        if (c[i] == '\'') fputs(zsh ? "'\\''" : "\\'", f);
        else if (c[i] == '\\') fputs("\\\\", f);
        else fputc(c[i], f);
    }
}

static void write_bash(FILE *f, const help *h)
{
    fprintf(f, "# bash completion for skinview. Made by tools/make_docs.c from skinview --help: edit that.\n");
    write_names_function(f, "_skinview_names");
    fprintf(f, "_skinview() {\n"
               "  # Words one a line: clip and bone names may hold spaces.\n"
               "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} i word model= IFS=$'\\n'\n"
               "  local valued=' ");
    value_options(f, h);
    fprintf(f, " '\n"
               "  # --name=VALUE: bash splits the word at '=' (COMP_WORDBREAKS).\n"
               "  if [[ $cur == = ]]; then cur=; elif [[ $prev == = && $COMP_CWORD -ge 2 ]]; then prev=${COMP_WORDS[COMP_CWORD-2]}; fi\n"
               "  # The model: the first word that is neither an option nor an option's value.\n"
               "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
               "    word=${COMP_WORDS[i]}\n"
               "    if [[ $word == = ]]; then ((i++)); continue; fi\n"
               "    if [[ $word == -* ]]; then\n"
               "      [[ $word != *=* && $valued == *\" $word \"* && ${COMP_WORDS[i+1]} != = ]] && ((i++))\n"
               "      continue\n"
               "    fi\n"
               "    model=$word\n"
               "    break\n"
               "  done\n"
               "  model=${model/#\\~/$HOME}\n"
               "  case $prev in\n");
    for (int i = 0; i < h->count; i++) {
        const entry *e = &h->entries[i];
        if (!is_option(e) || e->kind == VALUE_NONE) continue;
        fprintf(f, "    %s) ", e->name);
        switch (e->kind) {
        case VALUE_CHOICES:
            fprintf(f, "COMPREPLY=($(compgen -W $'");
            choices(f, e->value, "\\n");
            fprintf(f, "' -- \"$cur\"))");
            break;
        case VALUE_FILE: fprintf(f, "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"))"); break;
        case VALUE_DIR: fprintf(f, "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$cur\"))"); break;
        case VALUE_CLIP:
        case VALUE_BONE:
            fprintf(f, "[[ -f $model ]] && COMPREPLY=($(compgen -W \"$(_skinview_names \"$model\" %s)\" -- \"$cur\"))",
                    e->kind == VALUE_CLIP ? "clips" : "bones");
            break;
        default: fprintf(f, "COMPREPLY=()"); break;
        }
        fprintf(f, "; return ;;\n");
    }
    fprintf(f, "  esac\n"
               "  if [[ $cur == -* ]]; then\n"
               "    COMPREPLY=($(compgen -W $'");
    int first = 1;
    for (int i = 0; i < h->count; i++)
        if (is_option(&h->entries[i])) fprintf(f, "%s%s", first ? "" : "\\n", h->entries[i].name), first = 0;
    fprintf(f, "' -- \"$cur\"))\n"
               "    return\n"
               "  fi\n"
               "  compopt -o filenames 2>/dev/null\n"
               "  COMPREPLY=($(compgen -f -- \"$cur\"))\n"
               "}\n"
               "complete -F _skinview skinview\n");
}

static void write_zsh(FILE *f, const help *h)
{
    fprintf(f, "#compdef skinview\n# zsh completion for skinview. Made by tools/make_docs.c from skinview --help: edit that.\n");
    write_names_function(f, "_skinview_names");
    fprintf(f, "_skinview_model_names() { # clips|bones: of the model on the line\n"
               "  local i word model valued=' ");
    value_options(f, h);
    fprintf(f, " '\n"
               "  for ((i = 2; i < CURRENT; i++)); do\n"
               "    word=${words[i]}\n"
               "    if [[ $word == -* ]]; then\n"
               "      [[ $word != *=* && $valued == *\" $word \"* ]] && ((i++))\n"
               "      continue\n"
               "    fi\n"
               "    model=${~word}\n"
               "    break\n"
               "  done\n"
               "  [[ -f $model ]] || return 1\n"
               "  local -a names\n"
               "  names=(${(f)\"$(_skinview_names \"$model\" $1)\"})\n"
               "  compadd -a names\n"
               "}\n"
               "_skinview() {\n"
               "  _arguments -s \\\n");
    for (int i = 0; i < h->count; i++) {
        const entry *e = &h->entries[i];
        if (!is_option(e)) continue;
        fprintf(f, "    '%s%s[", e->name, e->kind == VALUE_NONE ? "" : "=");
        description(f, e->help, 1);
        fputc(']', f);
        switch (e->kind) {
        case VALUE_NONE: break;
        case VALUE_CHOICES:
            fprintf(f, ":%s:(", e->name + 2);
            choices(f, e->value, " ");
            fputc(')', f);
            break;
        case VALUE_FILE: fprintf(f, ":file:_files"); break;
        case VALUE_DIR: fprintf(f, ":folder:_files -/"); break;
        case VALUE_CLIP: fprintf(f, ":clip:{_skinview_model_names clips}"); break;
        case VALUE_BONE: fprintf(f, ":bone:{_skinview_model_names bones}"); break;
        default: fprintf(f, ":%s: ", e->value); break;
        }
        fprintf(f, "' \\\n");
    }
    fprintf(f, "    '*:model file:_files'\n"
               "}\n"
               "_skinview \"$@\"\n");
}

static void write_fish(FILE *f, const help *h)
{
    fprintf(f, "# fish completion for skinview. Made by tools/make_docs.c from skinview --help: edit that.\n"
               "function __skinview_names --description 'clip or bone names of the model on the command line'\n"
               "    set -l valued ");
    value_options(f, h);
    fprintf(f, "\n"
               "    set -l words (commandline -opc)\n"
               "    set -l model\n"
               "    set -l i 2\n"
               "    while test $i -le (count $words)\n"
               "        set -l word $words[$i]\n"
               "        if string match -q -- '-*' $word\n"
               "            if not string match -q -- '*=*' $word; and contains -- $word $valued\n"
               "                set i (math $i + 1)\n"
               "            end\n"
               "        else\n"
               "            set model $word\n"
               "            break\n"
               "        end\n"
               "        set i (math $i + 1)\n"
               "    end\n"
               "    test -f \"$model\"; or return\n"
               "    set -l json (command skinview $model --list --json 2>/dev/null | string join '')\n"
               "    switch $argv[1]\n"
               "        case bones\n"
               "            set json (string replace -r '^.*?\"bones\":\\\\[' '' -- $json | string replace -r '\"(nodes|clips)\":\\\\[.*$' '')\n"
               "        case clips\n"
               "            set json (string replace -r '^.*?\"clips\":\\\\[' '' -- $json | string replace -r '\"warnings\":\\\\[.*$' '')\n"
               "    end\n"
               "    string match -a -r -g '\"index\":[0-9]+,\"name\":\"([^\"]*)\"' -- $json\n"
               "end\n");
    for (int i = 0; i < h->count; i++) {
        const entry *e = &h->entries[i];
        if (!is_option(e)) continue;
        fprintf(f, "complete -c skinview -l %s", e->name + 2);
        if (strcmp(e->name, "--help") == 0) fprintf(f, " -s h");
        fprintf(f, " -d '");
        description(f, e->help, 0);
        fputc('\'', f);
        switch (e->kind) {
        case VALUE_NONE: break;
        case VALUE_CHOICES:
            fprintf(f, " -x -a '");
            choices(f, e->value, " ");
            fputc('\'', f);
            break;
        case VALUE_FILE: fprintf(f, " -r -F"); break;
        case VALUE_DIR: fprintf(f, " -x -a '(__fish_complete_directories)'"); break;
        case VALUE_CLIP: fprintf(f, " -x -a '(__skinview_names clips)'"); break;
        case VALUE_BONE: fprintf(f, " -x -a '(__skinview_names bones)'"); break;
        default: fprintf(f, " -x"); break;
        }
        fputc('\n', f);
    }
}

static int write_file(const char *dir, const char *name, void (*write)(FILE *, const help *), const help *h)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    write(f, h);
    return fclose(f);
}

static const char *man_version;
static void write_man_file(FILE *f, const help *h)
{
    write_man(f, h, man_version);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: make_docs OUT_DIR VERSION\n");
        return 2;
    }
    char *text = NULL;
    size_t size = 0;
    FILE *m = open_memstream(&text, &size);
    if (!m) return 1;
    options_print_help(m);
    if (fclose(m) != 0) return 1;
    static help h;
    parse_help(text, &h);
    int options = 0;
    for (int i = 0; i < h.count; i++) options += is_option(&h.entries[i]);
    if (!h.usage || options < 10 || !h.exit_status) {
        fprintf(stderr, "make_docs: --help's layout is not what it reads (usage, options, exit status)\n");
        return 1;
    }
    man_version = argv[2];
    int failed = write_file(argv[1], "skinview.1", write_man_file, &h) != 0;
    failed |= write_file(argv[1], "skinview.bash", write_bash, &h) != 0;
    failed |= write_file(argv[1], "_skinview", write_zsh, &h) != 0;
    failed |= write_file(argv[1], "skinview.fish", write_fish, &h) != 0;
    if (failed) fprintf(stderr, "make_docs: cannot write into %s\n", argv[1]);
    free(text);
    return failed;
}
