/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Finding the place for brock's script in a streaming HTML document: a small part of HTML's
 * tokenizer (tag open, tag name, attributes with their quotes, comments with their odd ends,
 * doctypes and other markup declarations), enough to tell where the document's head opens. */
#include "proxy/inject.h"

#include <string.h>

/* Where the scanner is. */
enum {
    S_TEXT,      /* between tags */
    S_LT,        /* "<" held */
    S_LT_SLASH,  /* "</" held */
    S_NAME,      /* "<" and a start tag's name so far held */
    S_BANG,      /* "<!" held */
    S_BANG_DASH, /* "<!-" held */
    S_COMMENT,   /* in a comment */
    S_BOGUS,     /* in a doctype, a processing instruction, a bogus comment: until '>' */
    S_TAG,       /* in a <head> or <html> start tag, past its name */
};

/* Where in a <head> or <html> tag's attributes (HTML's attribute states; "after a quoted
 * value" and "self-closing start tag" read the next byte as "before a name" does). */
enum {
    A_BEFORE_NAME, /* '>' ends the tag; '=' starts a name */
    A_IN_NAME,
    A_AFTER_NAME,
    A_BEFORE_VALUE, /* after '=' */
    A_DQ,           /* in a value quoted with '"': '>' is the value's */
    A_SQ,           /* in a value quoted with '\'' */
    A_UNQ,          /* in an unquoted value */
};

/* Where in a comment (HTML's comment states). */
enum {
    C_START,      /* "<!--": '>' ends it at once */
    C_START_DASH, /* "<!---": so does '>' */
    C_TEXT,
    C_END_DASH, /* "-" */
    C_END,      /* "--": '>' ends it */
    C_END_BANG, /* "--!": so does '>' */
};

/* What a byte does to the output. */
enum act {
    ACT_PASS,       /* it goes out as part of the text around it */
    ACT_HOLD,       /* it is held (the text before it goes out first) */
    ACT_HOLD_FLUSH, /* it is held, and what is held goes out: a comment opened */
    ACT_RELEASE,    /* what is held goes out; the byte is looked at again in the new state */
    ACT_BEFORE,     /* the script goes out before what is held; the rest passes */
    ACT_HERE,       /* the script goes out before this byte; the rest passes */
    ACT_AFTER,      /* the script goes out after this byte (the end of <head ...>) */
    ACT_GIVE_UP,    /* not a document brock can add to: everything passes as it is */
};

void inject_init(struct inject *in, const char *script, size_t script_len,
                 int (*emit)(void *arg, const char *p, size_t len), void *arg)
{
    memset(in, 0, sizeof(*in));
    in->state = S_TEXT;
    in->script = script;
    in->script_len = script_len;
    in->emit = emit;
    in->arg = arg;
}

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

static int is_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Whether the held tag's name is name (lower case), ASCII case-insensitively as HTML reads
 * it. */
static int held_name_is(const struct inject *in, const char *name)
{
    size_t n = strlen(name);

    if (in->n_hold != n + 1)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)in->hold[i + 1];

        if ((c >= 'A' && c <= 'Z' ? c + 32 : c) != (unsigned char)name[i])
            return 0;
    }
    return 1;
}

/* The next state among a tag's attributes; sets *ended at the '>' that ends the tag. */
static int attr_next(int sub, unsigned char c, int *ended)
{
    int space = is_space(c);

    *ended = 0;
    switch (sub) {
    case A_BEFORE_NAME: *ended = c == '>'; return space || c == '/' || c == '>' ? sub : A_IN_NAME;
    case A_IN_NAME:
    case A_AFTER_NAME:
        *ended = c == '>';
        if (c == '=')
            return A_BEFORE_VALUE;
        if (c == '/')
            return A_BEFORE_NAME;
        if (space)
            return A_AFTER_NAME;
        return c == '>' ? sub : A_IN_NAME;
    case A_BEFORE_VALUE:
        *ended = c == '>';
        if (c == '"' || c == '\'')
            return c == '"' ? A_DQ : A_SQ;
        return space || c == '>' ? sub : A_UNQ;
    case A_DQ: return c == '"' ? A_BEFORE_NAME : sub;
    case A_SQ: return c == '\'' ? A_BEFORE_NAME : sub;
    default: /* A_UNQ */ *ended = c == '>'; return space ? A_BEFORE_NAME : sub;
    }
}

/* Inside a <head> or <html> start tag: a '>' ends it unless a quoted value holds it. */
static enum act step_tag(struct inject *in, unsigned char c)
{
    int ended;

    in->sub = attr_next(in->sub, c, &ended);
    if (!ended)
        return ACT_PASS;
    in->state = S_TEXT;
    /* After <html ...> the search goes on: a <head> may follow. */
    return in->is_head ? ACT_AFTER : ACT_PASS;
}

/* A start tag's name so far is held: only "head" and "html" are looked into; any other tag
 * is where the head would open. */
static enum act step_name(struct inject *in, unsigned char c)
{
    if (!is_space(c) && c != '/' && c != '>') {
        /* "<head" or "<html" and one byte more is another tag. */
        return in->n_hold < 5 ? ACT_HOLD : ACT_BEFORE;
    }
    if (!held_name_is(in, "head") && !held_name_is(in, "html"))
        return ACT_BEFORE;
    in->is_head = held_name_is(in, "head");
    in->sub = A_BEFORE_NAME;
    in->state = S_TAG;
    return ACT_RELEASE;
}

/* In a comment: it ends at "-->", "--!>", or right after its opening ("<!-->", "<!--->"),
 * as HTML's tokenizer ends it. */
static enum act step_comment(struct inject *in, unsigned char c)
{
    int end = c == '>' && (in->sub == C_START || in->sub == C_START_DASH || in->sub == C_END ||
                           in->sub == C_END_BANG);

    if (end) {
        in->state = S_TEXT;
        return ACT_PASS;
    }
    switch (in->sub) {
    case C_START: in->sub = c == '-' ? C_START_DASH : C_TEXT; break;
    case C_START_DASH: in->sub = c == '-' ? C_END : C_TEXT; break;
    case C_TEXT: in->sub = c == '-' ? C_END_DASH : C_TEXT; break;
    case C_END_DASH: in->sub = c == '-' ? C_END : C_TEXT; break;
    case C_END: in->sub = c == '!' ? C_END_BANG : c == '-' ? C_END : C_TEXT; break;
    default: in->sub = c == '-' ? C_END_DASH : C_TEXT; break; /* C_END_BANG */
    }
    return ACT_PASS;
}

/* After "<", "</", "<!" or "<!-": what the markup is. */
static enum act step_open(struct inject *in, unsigned char c)
{
    switch (in->state) {
    case S_LT:
        if (is_alpha(c)) {
            in->state = S_NAME;
            return ACT_HOLD;
        }
        in->state = c == '!' ? S_BANG : c == '/' ? S_LT_SLASH : c == '?' ? S_BOGUS : S_TEXT;
        /* "<?" is a processing instruction (an XML declaration, in XHTML). A '<' before
         * anything else is text. */
        return c == '!' || c == '/' ? ACT_HOLD : c == '?' ? ACT_HOLD_FLUSH : ACT_RELEASE;
    case S_LT_SLASH:
        /* An end tag is a tag like another; "</>" is nothing, "</3" a bogus comment. */
        if (is_alpha(c))
            return ACT_BEFORE;
        in->state = c == '>' ? S_TEXT : S_BOGUS;
        return ACT_HOLD_FLUSH;
    case S_BANG:
        if (c == '-') {
            in->state = S_BANG_DASH;
            return ACT_HOLD;
        }
        in->state = S_BOGUS; /* a doctype, or a bogus comment */
        return ACT_RELEASE;
    default: /* S_BANG_DASH */
        if (c == '-') {
            in->state = S_COMMENT;
            in->sub = C_START;
            return ACT_HOLD_FLUSH;
        }
        in->state = S_BOGUS;
        return ACT_RELEASE;
    }
}

/* What one byte does, in the scanner's state. */
static enum act step(struct inject *in, unsigned char c)
{
    /* UTF-8 has no 0xFE or 0xFF, and a document's prelude has no NUL: a document that starts
     * with either, or has a NUL before its head, is UTF-16 (or not text), where brock's bytes
     * would be garbage. */
    if (c == 0 || (in->seen == 0 && (c == 0xFE || c == 0xFF)))
        return ACT_GIVE_UP;
    switch (in->state) {
    case S_TEXT:
        if (in->seen >= INJECT_SCAN_MAX)
            return ACT_HERE;
        if (c != '<')
            return ACT_PASS;
        in->state = S_LT;
        return ACT_HOLD;
    case S_NAME: return step_name(in, c);
    case S_COMMENT: return step_comment(in, c);
    case S_BOGUS:
        if (c == '>')
            in->state = S_TEXT;
        return ACT_PASS;
    case S_TAG: return step_tag(in, c);
    default: return step_open(in, c);
    }
}

static int out(struct inject *in, const char *p, size_t n)
{
    return n == 0 ? 0 : in->emit(in->arg, p, n);
}

static int out_hold(struct inject *in)
{
    size_t n = in->n_hold;

    in->n_hold = 0;
    return out(in, in->hold, n);
}

static int out_script(struct inject *in)
{
    in->inserted = 1;
    in->passing = 1;
    return out(in, in->script, in->script_len);
}

/* Does what a byte's act says. The text not yet out is p[*start..i); while bytes are held it
 * is empty. Returns how far i moves (0: the byte is looked at again), or -1 when emit
 * failed. */
static int apply(struct inject *in, enum act a, const char *p, size_t i, size_t *start)
{
    int rc = 0;

    switch (a) {
    case ACT_PASS: return 1;
    case ACT_HOLD:
    case ACT_HOLD_FLUSH:
        rc = in->n_hold == 0 ? out(in, p + *start, i - *start) : 0;
        in->hold[in->n_hold++] = p[i];
        *start = i + 1;
        if (rc == 0 && a == ACT_HOLD_FLUSH)
            rc = out_hold(in);
        return rc < 0 ? -1 : 1;
    case ACT_RELEASE: *start = i; return out_hold(in) < 0 ? -1 : 0;
    case ACT_BEFORE: *start = i; return out_script(in) < 0 || out_hold(in) < 0 ? -1 : 0;
    case ACT_HERE:
    case ACT_AFTER:
        rc = out(in, p + *start, i + (a == ACT_AFTER) - *start);
        *start = i + (a == ACT_AFTER);
        return rc < 0 || out_script(in) < 0 ? -1 : a == ACT_AFTER;
    case ACT_GIVE_UP:
        in->passing = 1;
        if (in->n_hold > 0)
            *start = i;
        return out_hold(in) < 0 ? -1 : 0;
    }
    return -1;
}

int inject_feed(struct inject *in, const char *p, size_t len)
{
    size_t i = 0, start = 0;

    while (i < len && !in->passing) {
        enum act a = step(in, (unsigned char)p[i]);
        int moved = apply(in, a, p, i, &start);

        if (moved < 0)
            return -1;
        i += (size_t)moved;
        in->seen += (uint64_t)moved;
    }
    return out(in, p + start, len - start);
}

int inject_end(struct inject *in)
{
    if (!in->passing && in->seen > 0 && out_script(in) < 0)
        return -1;
    in->passing = 1;
    return out_hold(in);
}
