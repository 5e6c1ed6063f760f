/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 and IPv6 5-tuple ACLs: ClassBench '@' rule file loaders (whole file
 * checked before anything is kept) and rte_acl classifiers built from their
 * rules, one per family. Both families share the parser of everything after
 * the two prefixes and the classifier code; they differ in the prefixes and
 * in the rte_acl field layout.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_acl.h>
#include <rte_common.h>
#include <rte_errno.h>

#include "acl.h"
#include "linefile.h"

enum {
	F_PROTO,
	F_SRC,
	F_DST,
	F_SPORT,
	F_DPORT,
	F_NUM,
};

RTE_ACL_RULE_DEF(acl4_rule, F_NUM);

/*
 * rte_acl wants the first field to be one byte and reads its input in 4-byte
 * words: proto alone in word 0, the addresses in words 1 and 2, both ports in
 * word 3.
 */
static const struct rte_acl_field_def acl4_defs[F_NUM] = {
	{
		.type = RTE_ACL_FIELD_TYPE_BITMASK,
		.size = sizeof(uint8_t),
		.field_index = F_PROTO,
		.input_index = 0,
		.offset = offsetof(struct acl_key, proto),
	},
	{
		.type = RTE_ACL_FIELD_TYPE_MASK,
		.size = sizeof(uint32_t),
		.field_index = F_SRC,
		.input_index = 1,
		.offset = offsetof(struct acl_key, src),
	},
	{
		.type = RTE_ACL_FIELD_TYPE_MASK,
		.size = sizeof(uint32_t),
		.field_index = F_DST,
		.input_index = 2,
		.offset = offsetof(struct acl_key, dst),
	},
	{
		.type = RTE_ACL_FIELD_TYPE_RANGE,
		.size = sizeof(uint16_t),
		.field_index = F_SPORT,
		.input_index = 3,
		.offset = offsetof(struct acl_key, sport),
	},
	{
		.type = RTE_ACL_FIELD_TYPE_RANGE,
		.size = sizeof(uint16_t),
		.field_index = F_DPORT,
		.input_index = 3,
		.offset = offsetof(struct acl_key, dport),
	},
};

/*
 * IPv6: rte_acl fields are at most 4 bytes wide (8 for one that is the only
 * one in its input word pair, which a 16-byte address is not), so each
 * address is four 32-bit MASK fields, one input word each, as DPDK's
 * l3fwd-acl does: proto in word 0, source in words 1-4, destination in words
 * 5-8, both ports in word 9.
 */
enum {
	F6_PROTO,
	F6_SRC0,
	F6_DST0 = F6_SRC0 + 4,
	F6_SPORT = F6_DST0 + 4,
	F6_DPORT,
	F6_NUM,
};

RTE_ACL_RULE_DEF(acl6_rte_rule, F6_NUM);

#define F6_WORD(base, key_field, w)                                                      \
	{                                                                                \
		.type = RTE_ACL_FIELD_TYPE_MASK, .size = sizeof(uint32_t),               \
		.field_index = (base) + (w), .input_index = (base) + (w),                \
		.offset = offsetof(struct acl6_key, key_field) + (w) * sizeof(uint32_t), \
	}

static const struct rte_acl_field_def acl6_defs[F6_NUM] = {
	{
		.type = RTE_ACL_FIELD_TYPE_BITMASK,
		.size = sizeof(uint8_t),
		.field_index = F6_PROTO,
		.input_index = 0,
		.offset = offsetof(struct acl6_key, proto),
	},
	F6_WORD(F6_SRC0, src, 0),
	F6_WORD(F6_SRC0, src, 1),
	F6_WORD(F6_SRC0, src, 2),
	F6_WORD(F6_SRC0, src, 3),
	F6_WORD(F6_DST0, dst, 0),
	F6_WORD(F6_DST0, dst, 1),
	F6_WORD(F6_DST0, dst, 2),
	F6_WORD(F6_DST0, dst, 3),
	{
		.type = RTE_ACL_FIELD_TYPE_RANGE,
		.size = sizeof(uint16_t),
		.field_index = F6_SPORT,
		.input_index = F6_SPORT,
		.offset = offsetof(struct acl6_key, sport),
	},
	{
		.type = RTE_ACL_FIELD_TYPE_RANGE,
		.size = sizeof(uint16_t),
		.field_index = F6_DPORT,
		.input_index = F6_SPORT,
		.offset = offsetof(struct acl6_key, dport),
	},
};

struct acl_ctx {
	struct rte_acl_ctx *acl; /* NULL for an empty rule set. */
	uint32_t n;
	uint8_t def;
	uint8_t *actions;
};

/* What follows the two prefixes: the same for both families. */
struct rule_tail {
	uint16_t sport_lo;
	uint16_t sport_hi;
	uint16_t dport_lo;
	uint16_t dport_hi;
	uint8_t proto;
	uint8_t proto_mask;
	uint8_t action;
};

/* Longest piece of a rule quoted in a reason. */
#define QUOTE_MAX 48

/* Write a reason for refusing a line, return -EINVAL. */
static int __rte_format_printf(3, 4) rule_error(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static const char *
skip_space(const char *p)
{
	while (*p != '\0' && isspace((unsigned char)*p))
		p++;
	return p;
}

/* Length of the token at p, up to white space, at most QUOTE_MAX. */
static int
tok_len(const char *p)
{
	int n = 0;

	while (p[n] != '\0' && !isspace((unsigned char)p[n]) && n < QUOTE_MAX)
		n++;
	return n;
}

static uint32_t
prefix_mask(unsigned int len)
{
	return len == 0 ? 0 : ~0u << (32 - len);
}

/*
 * The address of "ADDR/LEN" into buf (NUL-terminated) and the text after
 * the '/' into *lenp. Returns 0, or -EINVAL with a reason in why.
 */
static int
split_prefix(const char **pp, const char *what, char *buf, size_t buflen, const char **lenp,
	     char *why, size_t whylen)
{
	const char *p = *pp, *tok = p;
	size_t n;

	while (*p != '\0' && *p != '/' && !isspace((unsigned char)*p))
		p++;
	n = p - tok;
	if (n == 0)
		return rule_error(why, whylen, "missing %s prefix", what);
	if (*p != '/')
		return rule_error(why, whylen, "%s prefix has no /LEN: '%.*s'", what, tok_len(tok),
				  tok);
	/*
	 * Longer than any address of the family: refused whole, never cut to
	 * a prefix that inet_pton() would take.
	 */
	if (n >= buflen)
		return rule_error(why, whylen, "%s prefix is too long to be an address: '%.*s'",
				  what, (int)RTE_MIN(n, (size_t)QUOTE_MAX), tok);
	memcpy(buf, tok, n);
	buf[n] = '\0';
	*lenp = p + 1;
	*pp = tok;
	return 0;
}

/* The LEN of "ADDR/LEN" at p, at most max. Returns the end or NULL. */
static const char *
parse_prefix_len(const char *p, const char *what, unsigned int max, uint8_t *len, char *why,
		 size_t whylen)
{
	unsigned long l;
	char *end;

	if (!isdigit((unsigned char)*p)) {
		snprintf(why, whylen, "%s prefix length is not a number: '%.*s'", what, tok_len(p),
			 p);
		return NULL;
	}
	errno = 0;
	l = strtoul(p, &end, 10);
	if (*end != '\0' && !isspace((unsigned char)*end)) {
		snprintf(why, whylen, "%s prefix length is not a number: '%.*s'", what, tok_len(p),
			 p);
		return NULL;
	}
	if (errno != 0 || l > max) {
		snprintf(why, whylen, "%s prefix length must be 0 to %u: '%.*s'", what, max,
			 tok_len(p), p);
		return NULL;
	}
	*len = l;
	return end;
}

/* "A.B.C.D/LEN", host bits masked off. Returns NULL with a reason in why. */
static const char *
parse_prefix4(const char *p, const char *what, uint32_t *addr, uint8_t *len, char *why,
	      size_t whylen)
{
	char buf[INET_ADDRSTRLEN];
	const char *lenp;
	struct in_addr a;

	if (split_prefix(&p, what, buf, sizeof(buf), &lenp, why, whylen) != 0)
		return NULL;
	if (inet_pton(AF_INET, buf, &a) != 1) {
		snprintf(why, whylen, "%s prefix is not an IPv4 address: '%.*s'%s", what,
			 (int)(lenp - 1 - p) < QUOTE_MAX ? (int)(lenp - 1 - p) : QUOTE_MAX, p,
			 strchr(buf, ':') != NULL ? " (IPv6 rules go in [acl] ipv6)" : "");
		return NULL;
	}
	p = parse_prefix_len(lenp, what, 32, len, why, whylen);
	if (p == NULL)
		return NULL;
	*addr = ntohl(a.s_addr) & prefix_mask(*len);
	return p;
}

/* "IPV6/LEN", host bits masked off. Returns NULL with a reason in why. */
static const char *
parse_prefix6(const char *p, const char *what, uint8_t addr[16], uint8_t *len, char *why,
	      size_t whylen)
{
	char buf[INET6_ADDRSTRLEN];
	struct in6_addr a;
	const char *lenp;
	unsigned int i;

	if (split_prefix(&p, what, buf, sizeof(buf), &lenp, why, whylen) != 0)
		return NULL;
	if (inet_pton(AF_INET6, buf, &a) != 1) {
		snprintf(why, whylen, "%s prefix is not an IPv6 address: '%.*s'%s", what,
			 (int)(lenp - 1 - p) < QUOTE_MAX ? (int)(lenp - 1 - p) : QUOTE_MAX, p,
			 strchr(buf, ':') == NULL ? " (IPv4 rules go in [acl] ipv4)" : "");
		return NULL;
	}
	p = parse_prefix_len(lenp, what, 128, len, why, whylen);
	if (p == NULL)
		return NULL;
	for (i = 0; i < 16; i++) {
		unsigned int bits = *len > 8 * i ? *len - 8 * i : 0;

		addr[i] = bits >= 8 ? a.s6_addr[i] : a.s6_addr[i] & (uint8_t)(0xff00 >> bits);
	}
	return p;
}

static const char *
parse_port(const char *p, const char *what, uint16_t *port, char *why, size_t whylen)
{
	unsigned long v;
	char *end;

	if (!isdigit((unsigned char)*p)) {
		snprintf(why, whylen, "%s port range: expected LO : HI: '%.*s'", what, tok_len(p),
			 p);
		return NULL;
	}
	errno = 0;
	v = strtoul(p, &end, 10);
	if (*end != '\0' && *end != ':' && !isspace((unsigned char)*end)) {
		snprintf(why, whylen, "%s port is not a number: '%.*s'", what, tok_len(p), p);
		return NULL;
	}
	if (errno != 0 || v > UINT16_MAX) {
		snprintf(why, whylen, "%s port must be 0 to 65535: '%.*s'", what,
			 (int)(end - p) < QUOTE_MAX ? (int)(end - p) : QUOTE_MAX, p);
		return NULL;
	}
	*port = v;
	return end;
}

/* "LO : HI" (spaces around the colon optional). */
static const char *
parse_range(const char *p, const char *what, uint16_t *lo, uint16_t *hi, char *why, size_t whylen)
{
	const char *start = p;

	if (*p == '\0') {
		snprintf(why, whylen, "missing %s port range", what);
		return NULL;
	}
	p = parse_port(p, what, lo, why, whylen);
	if (p == NULL)
		return NULL;
	p = skip_space(p);
	if (*p != ':') {
		snprintf(why, whylen, "%s port range: expected LO : HI: '%.*s'", what,
			 (int)(p - start) + tok_len(p), start);
		return NULL;
	}
	p = skip_space(p + 1);
	p = parse_port(p, what, hi, why, whylen);
	if (p == NULL)
		return NULL;
	if (*lo > *hi) {
		snprintf(why, whylen, "%s port range: low end above high end: '%.*s'", what,
			 (int)(p - start), start);
		return NULL;
	}
	return p;
}

/* "0xHEX" up to max. */
static const char *
parse_hex(const char *p, unsigned long max, unsigned long *v)
{
	char *end;

	if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X') || !isxdigit((unsigned char)p[2]))
		return NULL;
	errno = 0;
	*v = strtoul(p + 2, &end, 16);
	if (errno != 0 || *v > max)
		return NULL;
	return end;
}

/* "0xVALUE/0xMASK". */
static const char *
parse_value_mask(const char *p, const char *what, unsigned long max, unsigned long *v,
		 unsigned long *m, char *why, size_t whylen)
{
	const char *start = p;

	p = parse_hex(p, max, v);
	if (p != NULL && *p == '/')
		p = parse_hex(p + 1, max, m);
	else
		p = NULL;
	if (p == NULL || (*p != '\0' && !isspace((unsigned char)*p))) {
		snprintf(why, whylen, "%s: expected 0xVALUE/0xMASK, at most 0x%lx: '%.*s'", what,
			 max, tok_len(start), start);
		return NULL;
	}
	return p;
}

/*
 * Everything after the destination prefix: port ranges, protocol, the
 * optional TCP flags and action, and nothing else.
 */
static int
parse_tail(const char *p, struct rule_tail *t, char *why, size_t whylen)
{
	unsigned long v, m;
	size_t n;

	t->action = ACL_DENY;
	p = parse_range(p, "source", &t->sport_lo, &t->sport_hi, why, whylen);
	if (p == NULL)
		return -EINVAL;
	p = skip_space(p);
	p = parse_range(p, "destination", &t->dport_lo, &t->dport_hi, why, whylen);
	if (p == NULL)
		return -EINVAL;
	p = skip_space(p);
	if (*p == '\0')
		return rule_error(why, whylen, "missing protocol");
	p = parse_value_mask(p, "protocol", UINT8_MAX, &v, &m, why, whylen);
	if (p == NULL)
		return -EINVAL;
	t->proto = v & m;
	t->proto_mask = m;
	p = skip_space(p);

	/* Optional 6th field: TCP flags, checked and ignored. */
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p = parse_value_mask(p, "flags", UINT16_MAX, &v, &m, why, whylen);
		if (p == NULL)
			return -EINVAL;
		p = skip_space(p);
	}

	/* Optional action (extension). */
	for (n = 0; isalpha((unsigned char)p[n]); n++)
		;
	if (n == 6 && strncmp(p, "permit", 6) == 0) {
		t->action = ACL_PERMIT;
		p = skip_space(p + n);
	} else if (n == 4 && strncmp(p, "deny", 4) == 0) {
		t->action = ACL_DENY;
		p = skip_space(p + n);
	}
	if (*p != '\0' && *p != '#')
		return rule_error(why, whylen, "trailing text after the rule: '%.*s'", tok_len(p),
				  p);
	return 1;
}

/* Blank or comment line: 0; a line that is not a rule: -EINVAL; else 1. */
static int
rule_start(const char **pp, char *why, size_t whylen)
{
	const char *p = skip_space(*pp);

	if (*p == '\0' || *p == '#')
		return 0;
	if (*p != '@')
		return rule_error(why, whylen, "a rule must start with '@'");
	*pp = p + 1;
	return 1;
}

int
acl_parse_line(const char *line, struct acl_rule *out, char *why, size_t whylen)
{
	const char *p = line;
	struct rule_tail t;
	int ret;

	ret = rule_start(&p, why, whylen);
	if (ret <= 0)
		return ret;
	memset(out, 0, sizeof(*out));
	p = parse_prefix4(p, "source", &out->src, &out->src_len, why, whylen);
	if (p == NULL)
		return -EINVAL;
	p = skip_space(p);
	p = parse_prefix4(p, "destination", &out->dst, &out->dst_len, why, whylen);
	if (p == NULL)
		return -EINVAL;
	ret = parse_tail(skip_space(p), &t, why, whylen);
	if (ret < 0)
		return ret;
	out->sport_lo = t.sport_lo;
	out->sport_hi = t.sport_hi;
	out->dport_lo = t.dport_lo;
	out->dport_hi = t.dport_hi;
	out->proto = t.proto;
	out->proto_mask = t.proto_mask;
	out->action = t.action;
	return 1;
}

int
acl6_parse_line(const char *line, struct acl6_rule *out, char *why, size_t whylen)
{
	const char *p = line;
	struct rule_tail t;
	int ret;

	ret = rule_start(&p, why, whylen);
	if (ret <= 0)
		return ret;
	memset(out, 0, sizeof(*out));
	p = parse_prefix6(p, "source", out->src, &out->src_len, why, whylen);
	if (p == NULL)
		return -EINVAL;
	p = skip_space(p);
	p = parse_prefix6(p, "destination", out->dst, &out->dst_len, why, whylen);
	if (p == NULL)
		return -EINVAL;
	ret = parse_tail(skip_space(p), &t, why, whylen);
	if (ret < 0)
		return ret;
	out->sport_lo = t.sport_lo;
	out->sport_hi = t.sport_hi;
	out->dport_lo = t.dport_lo;
	out->dport_hi = t.dport_hi;
	out->proto = t.proto;
	out->proto_mask = t.proto_mask;
	out->action = t.action;
	return 1;
}

/* Room for one more rule of size sz in (*r, *cap) holding n. */
static int
reserve_rule(void **r, size_t *cap, size_t n, size_t sz, char *why, size_t whylen)
{
	if (n >= ACL_MAX_RULES) {
		snprintf(why, whylen, "more than %u rules", ACL_MAX_RULES);
		return -E2BIG;
	}
	if (lf_array_reserve(r, cap, n, sz) != 0) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* lf_read_lines() callback: one IPv4 rule line into the set. */
static int
acl_load_line(void *arg, const char *line, uint32_t lineno, char *why, size_t whylen)
{
	struct acl_rule_set *s = arg;
	struct acl_rule r;
	int ret;

	ret = acl_parse_line(line, &r, why, whylen);
	if (ret <= 0)
		return ret;
	ret = reserve_rule((void **)&s->r, &s->cap, s->n, sizeof(*s->r), why, whylen);
	if (ret != 0)
		return ret;
	r.line = lineno;
	s->r[s->n++] = r;
	return 0;
}

/* lf_read_lines() callback: one IPv6 rule line into the set. */
static int
acl6_load_line(void *arg, const char *line, uint32_t lineno, char *why, size_t whylen)
{
	struct acl6_rule_set *s = arg;
	struct acl6_rule r;
	int ret;

	ret = acl6_parse_line(line, &r, why, whylen);
	if (ret <= 0)
		return ret;
	ret = reserve_rule((void **)&s->r, &s->cap, s->n, sizeof(*s->r), why, whylen);
	if (ret != 0)
		return ret;
	r.line = lineno;
	s->r[s->n++] = r;
	return 0;
}

long
acl_load(const char *path, struct acl_rule_set *s, char *err, size_t errlen)
{
	int ret;

	memset(s, 0, sizeof(*s));
	ret = lf_read_lines(path, acl_load_line, s, err, errlen);
	if (ret < 0) {
		acl_rule_set_free(s);
		return ret;
	}
	return (long)s->n;
}

long
acl6_load(const char *path, struct acl6_rule_set *s, char *err, size_t errlen)
{
	int ret;

	memset(s, 0, sizeof(*s));
	ret = lf_read_lines(path, acl6_load_line, s, err, errlen);
	if (ret < 0) {
		acl6_rule_set_free(s);
		return ret;
	}
	return (long)s->n;
}

void
acl_rule_set_free(struct acl_rule_set *s)
{
	free(s->r);
	s->r = NULL;
	s->n = s->cap = 0;
}

void
acl6_rule_set_free(struct acl6_rule_set *s)
{
	free(s->r);
	s->r = NULL;
	s->n = s->cap = 0;
}

/*
 * A classifier for n rules with the default def, and for n > 0 an empty
 * rte_acl context for rules of rule_size bytes. The caller fills
 * ctx->actions and adds the rules.
 */
static struct acl_ctx *
ctx_create(size_t n, enum acl_action def, int socket, uint32_t rule_size, char *err, size_t errlen)
{
	static uint32_t seq;
	char name[RTE_ACL_NAMESIZE];
	struct rte_acl_param prm;
	struct acl_ctx *ctx;

	if (n > ACL_MAX_RULES) {
		snprintf(err, errlen, "%zu rules, at most %u", n, ACL_MAX_RULES);
		return NULL;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL)
		goto nomem;
	ctx->n = n;
	ctx->def = def;
	ctx->actions = calloc(n ? n : 1, 1);
	if (ctx->actions == NULL)
		goto nomem;
	if (n == 0)
		return ctx;

	/* rte_acl_create() hands back an existing context of the same name. */
	snprintf(name, sizeof(name), "lf_acl_%u", __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	memset(&prm, 0, sizeof(prm));
	prm.name = name;
	prm.socket_id = socket;
	prm.rule_size = rule_size;
	prm.max_rule_num = n;
	ctx->acl = rte_acl_create(&prm);
	if (ctx->acl == NULL) {
		snprintf(err, errlen, "rte_acl_create: %s", rte_strerror(rte_errno));
		acl_free(ctx);
		return NULL;
	}
	return ctx;
nomem:
	snprintf(err, errlen, "out of memory");
	acl_free(ctx);
	return NULL;
}

/* Build the rte_acl tries of ctx once its rules are in. */
static int
ctx_build(struct acl_ctx *ctx, const struct rte_acl_field_def *defs, uint32_t n_defs, char *err,
	  size_t errlen)
{
	struct rte_acl_config cfg;
	int ret;

	memset(&cfg, 0, sizeof(cfg));
	cfg.num_categories = 1;
	cfg.num_fields = n_defs;
	memcpy(cfg.defs, defs, n_defs * sizeof(*defs));
	ret = rte_acl_build(ctx->acl, &cfg);
	if (ret != 0) {
		snprintf(err, errlen, "rte_acl_build: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

/* The rte_acl rule data of rule i: earlier lines win. */
static void
rule_data(struct rte_acl_rule_data *d, size_t i)
{
	d->category_mask = 1;
	/* rte_acl picks the highest priority. */
	d->priority = RTE_ACL_MAX_PRIORITY - i;
	/* userdata is the rule index + 1; 0 means no match. */
	d->userdata = i + 1;
}

struct acl_ctx *
acl_build(const struct acl_rule_set *s, enum acl_action def, int socket, char *err, size_t errlen)
{
	struct acl_ctx *ctx;
	size_t i;
	int ret;

	ctx = ctx_create(s->n, def, socket, RTE_ACL_RULE_SZ(F_NUM), err, errlen);
	if (ctx == NULL || s->n == 0)
		return ctx;
	for (i = 0; i < s->n; i++) {
		const struct acl_rule *r = &s->r[i];
		struct acl4_rule ar;

		ctx->actions[i] = r->action;
		memset(&ar, 0, sizeof(ar));
		rule_data(&ar.data, i);
		ar.field[F_PROTO].value.u8 = r->proto;
		ar.field[F_PROTO].mask_range.u8 = r->proto_mask;
		ar.field[F_SRC].value.u32 = r->src;
		ar.field[F_SRC].mask_range.u32 = r->src_len;
		ar.field[F_DST].value.u32 = r->dst;
		ar.field[F_DST].mask_range.u32 = r->dst_len;
		ar.field[F_SPORT].value.u16 = r->sport_lo;
		ar.field[F_SPORT].mask_range.u16 = r->sport_hi;
		ar.field[F_DPORT].value.u16 = r->dport_lo;
		ar.field[F_DPORT].mask_range.u16 = r->dport_hi;
		ret = rte_acl_add_rules(ctx->acl, (const struct rte_acl_rule *)&ar, 1);
		if (ret != 0) {
			snprintf(err, errlen, "rte_acl_add_rules: rule %zu: %s", i, strerror(-ret));
			goto fail;
		}
	}
	if (ctx_build(ctx, acl4_defs, RTE_DIM(acl4_defs), err, errlen) != 0)
		goto fail;
	return ctx;
fail:
	acl_free(ctx);
	return NULL;
}

/* One 16-byte prefix as four 32-bit MASK fields from first. */
static void
prefix6_fields(struct rte_acl_field *f, const uint8_t addr[16], unsigned int len)
{
	unsigned int w;

	for (w = 0; w < 4; w++) {
		uint32_t v;

		memcpy(&v, addr + 4 * w, sizeof(v));
		f[w].value.u32 = ntohl(v);
		f[w].mask_range.u32 = len > 32 * w ? RTE_MIN(len - 32 * w, 32u) : 0;
	}
}

struct acl_ctx *
acl6_build(const struct acl6_rule_set *s, enum acl_action def, int socket, char *err, size_t errlen)
{
	struct acl_ctx *ctx;
	size_t i;
	int ret;

	ctx = ctx_create(s->n, def, socket, RTE_ACL_RULE_SZ(F6_NUM), err, errlen);
	if (ctx == NULL || s->n == 0)
		return ctx;
	for (i = 0; i < s->n; i++) {
		const struct acl6_rule *r = &s->r[i];
		struct acl6_rte_rule ar;

		ctx->actions[i] = r->action;
		memset(&ar, 0, sizeof(ar));
		rule_data(&ar.data, i);
		ar.field[F6_PROTO].value.u8 = r->proto;
		ar.field[F6_PROTO].mask_range.u8 = r->proto_mask;
		prefix6_fields(&ar.field[F6_SRC0], r->src, r->src_len);
		prefix6_fields(&ar.field[F6_DST0], r->dst, r->dst_len);
		ar.field[F6_SPORT].value.u16 = r->sport_lo;
		ar.field[F6_SPORT].mask_range.u16 = r->sport_hi;
		ar.field[F6_DPORT].value.u16 = r->dport_lo;
		ar.field[F6_DPORT].mask_range.u16 = r->dport_hi;
		ret = rte_acl_add_rules(ctx->acl, (const struct rte_acl_rule *)&ar, 1);
		if (ret != 0) {
			snprintf(err, errlen, "rte_acl_add_rules: rule %zu: %s", i, strerror(-ret));
			goto fail;
		}
	}
	if (ctx_build(ctx, acl6_defs, RTE_DIM(acl6_defs), err, errlen) != 0)
		goto fail;
	return ctx;
fail:
	acl_free(ctx);
	return NULL;
}

void
acl_free(struct acl_ctx *ctx)
{
	if (ctx == NULL)
		return;
	rte_acl_free(ctx->acl);
	free(ctx->actions);
	free(ctx);
}

int
acl_classify(const struct acl_ctx *ctx, const uint8_t **data, uint32_t *results, uint32_t n)
{
	uint32_t i;
	int ret;

	if (ctx->acl == NULL) {
		for (i = 0; i < n; i++)
			results[i] = ACL_NO_MATCH;
		return 0;
	}
	ret = rte_acl_classify(ctx->acl, data, results, n, 1);
	if (ret != 0)
		return ret;
	/* userdata is the rule index + 1; 0 means no match. */
	for (i = 0; i < n; i++)
		results[i] = results[i] == 0 ? ACL_NO_MATCH : results[i] - 1;
	return 0;
}

enum acl_action
acl_action(const struct acl_ctx *ctx, uint32_t result)
{
	if (result >= ctx->n)
		return ctx->def;
	return ctx->actions[result];
}

uint32_t
acl_num_rules(const struct acl_ctx *ctx)
{
	return ctx->n;
}
