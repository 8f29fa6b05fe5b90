/* parse.c: gcc's AT&T assembly, one line at a time, into struct stmt. */
#include "asm.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const prefixes[] = {
	"rep", "repe", "repz", "repne", "repnz", "lock", "notrack", "bnd",
	"data16", "data32", "addr32", "rex", "rex64", "rex.w", "xacquire", "xrelease",
	"cs", "ds", "es", "fs", "gs", "ss", NULL,
};

static bool is_prefix(const char *w, size_t len)
{
	for (const char *const *p = prefixes; *p; p++)
		if (strlen(*p) == len && strncmp(*p, w, len) == 0)
			return true;
	return false;
}

static char *xstrndup(const char *s, size_t n)
{
	char *r = strndup(s, n);
	if (!r) {
		fputs("sicpp: out of memory\n", stderr);
		exit(2);
	}
	return r;
}

static void trim(const char **s, size_t *len)
{
	while (*len && isspace((unsigned char)**s))
		(*s)++, (*len)--;
	while (*len && isspace((unsigned char)(*s)[*len - 1]))
		(*len)--;
}

static bool is_sym_char(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == '$' || c == '@';
}

static struct stmt *push_stmt(struct asm_file *f, int lineno, bool foreign)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 1024;
		f->st = realloc(f->st, f->cap * sizeof *f->st);
		if (!f->st) {
			fputs("sicpp: out of memory\n", stderr);
			exit(2);
		}
	}
	struct stmt *s = &f->st[f->n++];
	memset(s, 0, sizeof *s);
	s->line = lineno;
	s->foreign = foreign;
	return s;
}

/* Split "a, b(%rax,%rbx), c" at the commas outside parentheses and quotes. */
static void split_operands(struct stmt *s)
{
	const char *p = s->args;
	int depth = 0;
	bool quoted = false;
	const char *start = p;
	s->nops = 0;
	if (!*p)
		return;
	for (;; p++) {
		if (quoted && *p == '\\' && p[1]) {
			p++; /* an escaped character inside a string */
			continue;
		}
		if (*p == '"')
			quoted = !quoted;
		else if (!quoted && *p == '(')
			depth++;
		else if (!quoted && *p == ')')
			depth--;
		if (*p == '\0' || (*p == ',' && depth == 0 && !quoted)) {
			const char *o = start;
			size_t len = p - start;
			trim(&o, &len);
			if (s->nops < MAX_OPS)
				s->ops[s->nops++] = xstrndup(o, len);
			if (!*p)
				break;
			start = p + 1;
		}
	}
}

/* One statement with no label, no ';' and no comment. */
static void parse_piece(struct stmt *s, const char *p, size_t len)
{
	s->text = xstrndup(p, len);
	if (p[0] == '.') {
		size_t n = 1;
		while (n < len && is_sym_char((unsigned char)p[n]))
			n++;
		s->kind = ST_DIRECTIVE;
		s->name = xstrndup(p, n);
		const char *a = p + n;
		size_t alen = len - n;
		trim(&a, &alen);
		s->args = xstrndup(a, alen);
		split_operands(s);
		return;
	}
	/* Instruction: prefixes, then the mnemonic, then operands. */
	char prefix[128] = "";
	for (;;) {
		size_t w = 0;
		while (w < len && !isspace((unsigned char)p[w]))
			w++;
		if (w < len && is_prefix(p, w) && strlen(prefix) + w + 2 < sizeof prefix) {
			if (*prefix)
				strcat(prefix, " ");
			strncat(prefix, p, w);
			p += w, len -= w;
			trim(&p, &len);
			continue;
		}
		s->kind = ST_INSN;
		s->name = xstrndup(p, w);
		const char *a = p + w;
		size_t alen = len - w;
		trim(&a, &alen);
		s->args = xstrndup(a, alen);
		break;
	}
	if (!*s->name && *prefix) {
		/* A lone prefix ("rep" on its own): keep it as the mnemonic. */
		free(s->name);
		s->name = xstrndup(prefix, strlen(prefix));
		*prefix = '\0';
	}
	s->prefix = xstrndup(prefix, strlen(prefix));
	split_operands(s);
}

int asm_parse_line(struct asm_file *f, const char *line, int lineno, bool foreign)
{
	size_t len = strlen(line);
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	if (foreign) {
		struct stmt *s = push_stmt(f, lineno, true);
		s->kind = ST_BLANK;
		s->text = xstrndup(line, len);
		return 0;
	}
	/* Cut the comment: '#' outside a string. */
	bool quoted = false;
	size_t end = 0;
	for (; end < len; end++) {
		if (quoted && line[end] == '\\' && end + 1 < len) {
			end++;
			continue;
		}
		if (line[end] == '"')
			quoted = !quoted;
		if (!quoted && line[end] == '#')
			break;
	}
	const char *p = line;
	size_t rest = end;
	int made = 0;
	char pending_prefix[64] = "";
	while (rest) {
		/* Next piece, up to ';' outside quotes. */
		size_t n = 0;
		quoted = false;
		for (; n < rest; n++) {
			if (quoted && p[n] == '\\' && n + 1 < rest) {
				n++;
				continue;
			}
			if (p[n] == '"')
				quoted = !quoted;
			if (!quoted && p[n] == ';')
				break;
		}
		const char *q = p;
		size_t qlen = n;
		p += n < rest ? n + 1 : n;
		rest -= n < rest ? n + 1 : n;
		trim(&q, &qlen);
		/* Labels at the front of the piece. */
		for (;;) {
			size_t k = 0;
			if (qlen && q[0] == '"') {
				k = 1;
				while (k < qlen && q[k] != '"')
					k++;
				k++;
			} else {
				while (k < qlen && is_sym_char((unsigned char)q[k]))
					k++;
			}
			if (k == 0 || k >= qlen || q[k] != ':')
				break;
			struct stmt *s = push_stmt(f, lineno, false);
			s->kind = ST_LABEL;
			s->name = xstrndup(q, k);
			s->text = xstrndup(q, k + 1);
			s->args = xstrndup("", 0);
			s->prefix = xstrndup("", 0);
			made++;
			q += k + 1, qlen -= k + 1;
			trim(&q, &qlen);
		}
		if (!qlen)
			continue;
		if (is_prefix(q, qlen) && strlen(pending_prefix) + qlen + 2 < sizeof pending_prefix) {
			/* "rep; stosq": the prefix applies to the next piece. */
			strncat(pending_prefix, q, qlen);
			strcat(pending_prefix, " ");
			continue;
		}
		struct stmt *s = push_stmt(f, lineno, false);
		if (*pending_prefix) {
			char buf[4096];
			snprintf(buf, sizeof buf, "%s%.*s", pending_prefix, (int)qlen, q);
			parse_piece(s, buf, strlen(buf));
			*pending_prefix = '\0';
		} else {
			parse_piece(s, q, qlen);
		}
		made++;
	}
	if (*pending_prefix) {
		struct stmt *s = push_stmt(f, lineno, false);
		size_t pl = strlen(pending_prefix) - 1;
		parse_piece(s, pending_prefix, pl);
		made++;
	}
	if (!made) {
		struct stmt *s = push_stmt(f, lineno, false);
		s->kind = ST_BLANK;
		s->text = xstrndup(line, len);
	}
	return 0;
}

static bool line_starts(const char *line, const char *word)
{
	while (isspace((unsigned char)*line))
		line++;
	size_t n = strlen(word);
	return strncmp(line, word, n) == 0 &&
	       (line[n] == '\0' || isspace((unsigned char)line[n]) || line[n] == ',');
}

/* What gas would not read the way sicpp does, in a line of n bytes: a NUL byte (gas
 * goes on past it, sicpp's strings end there), or a control character other than a
 * tab outside a string and a comment (gas refuses it; trimming would make it a
 * blank). NULL, or what is wrong; *at is its byte offset. */
static const char *unreadable(const char *line, size_t n, size_t *at)
{
	if (memchr(line, '\0', n)) {
		*at = (size_t)((const char *)memchr(line, '\0', n) - line);
		return "a NUL byte (gcc never writes one)";
	}
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	bool quoted = false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)line[i];
		if (quoted && c == '\\') {
			i++;
			continue;
		}
		if (c == '"')
			quoted = !quoted;
		if (!quoted && c == '#')
			break;
		if (!quoted && c < 0x20 && c != '\t') {
			*at = i;
			return "a control character outside a string (gas refuses it)";
		}
	}
	return NULL;
}

static bool numeric_label(const char *name)
{
	for (; *name; name++)
		if (!isdigit((unsigned char)*name))
			return false;
	return true;
}

static int by_name(const void *a, const void *b)
{
	const struct stmt *x = *(const struct stmt *const *)a, *y = *(const struct stmt *const *)b;
	int c = strcmp(x->name, y->name);
	return c ? c : x->line - y->line;
}

/* A symbol defined twice (gas refuses it): -1 with the second definition in err.
 * Numeric labels ("1:") may be defined again, as in gas. */
static int duplicate_labels(const struct asm_file *f, char *err, size_t errlen)
{
	const struct stmt **labels = malloc(((size_t)f->n + 1) * sizeof *labels);
	size_t n = 0;
	int rc = 0;
	if (!labels) {
		snprintf(err, errlen, "%s: sicpp: out of memory", f->path);
		return -1;
	}
	for (int i = 0; i < f->n; i++)
		if (f->st[i].kind == ST_LABEL && !f->st[i].foreign && !numeric_label(f->st[i].name))
			labels[n++] = &f->st[i];
	qsort(labels, n, sizeof *labels, by_name);
	for (size_t k = 1; k < n && rc == 0; k++)
		if (!strcmp(labels[k]->name, labels[k - 1]->name)) {
			snprintf(err, errlen, "%s:%d: sicpp: label %s defined twice (first at line %d)",
				 f->path, labels[k]->line, labels[k]->name, labels[k - 1]->line);
			rc = -1;
		}
	free(labels);
	return rc;
}

int asm_parse(struct asm_file *f, const char *path, FILE *in, char *err, size_t errlen)
{
	memset(f, 0, sizeof *f);
	f->path = path;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0;
	/* Foreign regions nest only as far as gcc emits them: an inline asm block
	 * may switch syntax or mode inside itself, always switching back. */
	bool in_app = false, in_intel = false, in_code32 = false;
	while ((len = getline(&line, &cap, in)) >= 0) {
		lineno++;
		bool was_foreign = in_app || in_intel || in_code32;
		if (line_starts(line, "#APP"))
			in_app = true;
		else if (line_starts(line, "#NO_APP"))
			in_app = false;
		else if (line_starts(line, ".intel_syntax"))
			in_intel = true;
		else if (line_starts(line, ".att_syntax"))
			in_intel = false;
		else if (line_starts(line, ".code32") || line_starts(line, ".code16") ||
			 line_starts(line, ".code16gcc"))
			in_code32 = true;
		else if (line_starts(line, ".code64"))
			in_code32 = false;
		bool foreign = was_foreign || in_app || in_intel || in_code32;
		/* Foreign lines are copied as they are (gas judges them), whole. */
		size_t at;
		const char *why = unreadable(line, (size_t)len, &at);
		if (why && (!foreign || line[at] == '\0')) {
			snprintf(err, errlen, "%s:%d: sicpp: byte 0x%02x at column %zu: %s", path, lineno,
				 (unsigned char)line[at], at + 1, why);
			free(line);
			return -1;
		}
		int first = f->n;
		asm_parse_line(f, line, lineno, foreign);
		for (int k = first; k < f->n; k++)
			f->st[k].in_app = in_app || line_starts(line, "#NO_APP");
	}
	free(line);
	if (ferror(in)) {
		snprintf(err, errlen, "%s: read error", path);
		return -1;
	}
	if (in_app) {
		snprintf(err, errlen, "%s:%d: #APP without #NO_APP", path, lineno);
		return -1;
	}
	return duplicate_labels(f, err, errlen);
}

void asm_free(struct asm_file *f)
{
	for (int i = 0; i < f->n; i++) {
		struct stmt *s = &f->st[i];
		free(s->text);
		free(s->name);
		free(s->args);
		free(s->prefix);
		for (int k = 0; k < s->nops; k++)
			free(s->ops[k]);
	}
	free(f->st);
	memset(f, 0, sizeof *f);
}

const char *asm_source_pos(const struct asm_file *f, int i, char *buf, size_t len)
{
	*buf = '\0';
	long fileno = -1, lineno = 0;
	for (int k = i; k >= 0; k--) {
		const struct stmt *s = &f->st[k];
		if (s->kind == ST_DIRECTIVE && !strcmp(s->name, ".loc") && s->args) {
			char *end;
			fileno = strtol(s->args, &end, 10);
			lineno = strtol(end, NULL, 10);
			break;
		}
	}
	if (fileno < 0)
		return buf;
	for (int k = 0; k < f->n; k++) {
		const struct stmt *s = &f->st[k];
		char *end;
		if (s->kind == ST_DIRECTIVE && !strcmp(s->name, ".file") && strtol(s->args, &end, 10) == fileno &&
		    end != s->args) {
			const char *q = strrchr(s->args, '"');
			const char *p = q ? q - 1 : NULL;
			while (p && p > s->args && *p != '"')
				p--;
			if (p && q > p)
				snprintf(buf, len, "%.*s:%ld", (int)(q - p - 1), p + 1, lineno);
			return buf;
		}
	}
	return buf;
}

void sicpp_error(const struct asm_file *f, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s:%d: sicpp: ", f && f->path ? f->path : "<input>", line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
