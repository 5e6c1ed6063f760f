/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 5-tuple ACL: a ClassBench '@' rule file loader (whole file checked
 * before anything is kept) and an rte_acl classifier built from its rules.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
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

struct acl_ctx {
	struct rte_acl_ctx *acl; /* NULL for an empty rule set. */
	uint32_t n;
	uint8_t def;
	uint8_t *actions;
};

static const char *
skip_space(const char *p)
{
	while (*p != '\0' && isspace((unsigned char)*p))
		p++;
	return p;
}

static uint32_t
prefix_mask(unsigned int len)
{
	return len == 0 ? 0 : ~0u << (32 - len);
}

/* "A.B.C.D/LEN", host bits masked off. Returns NULL with a reason in why. */
static const char *
parse_prefix(const char *p, const char *what, uint32_t *addr, uint8_t *len, char *why,
	     size_t whylen)
{
	char buf[INET_ADDRSTRLEN];
	const char *tok = p;
	unsigned long l;
	struct in_addr a;
	char *end;
	size_t n;

	while (*p != '\0' && *p != '/' && !isspace((unsigned char)*p))
		p++;
	n = p - tok;
	if (n == 0) {
		snprintf(why, whylen, "missing %s prefix", what);
		return NULL;
	}
	if (*p != '/') {
		snprintf(why, whylen, "%s prefix has no /LEN", what);
		return NULL;
	}
	if (n >= sizeof(buf)) {
		snprintf(why, whylen, "%s prefix is not an IPv4 address", what);
		return NULL;
	}
	memcpy(buf, tok, n);
	buf[n] = '\0';
	if (inet_pton(AF_INET, buf, &a) != 1) {
		snprintf(why, whylen, "%s prefix is not an IPv4 address", what);
		return NULL;
	}
	p++;
	if (!isdigit((unsigned char)*p)) {
		snprintf(why, whylen, "%s prefix length is not a number", what);
		return NULL;
	}
	errno = 0;
	l = strtoul(p, &end, 10);
	if (errno != 0 || l > 32) {
		snprintf(why, whylen, "%s prefix length must be 0 to 32", what);
		return NULL;
	}
	if (*end != '\0' && !isspace((unsigned char)*end)) {
		snprintf(why, whylen, "%s prefix length is not a number", what);
		return NULL;
	}
	*len = l;
	*addr = ntohl(a.s_addr) & prefix_mask(l);
	return end;
}

static const char *
parse_port(const char *p, const char *what, uint16_t *port, char *why, size_t whylen)
{
	unsigned long v;
	char *end;

	if (!isdigit((unsigned char)*p)) {
		snprintf(why, whylen, "%s port range: expected LO : HI", what);
		return NULL;
	}
	errno = 0;
	v = strtoul(p, &end, 10);
	if (errno != 0 || v > UINT16_MAX) {
		snprintf(why, whylen, "%s port must be 0 to 65535", what);
		return NULL;
	}
	if (*end != '\0' && *end != ':' && !isspace((unsigned char)*end)) {
		snprintf(why, whylen, "%s port is not a number", what);
		return NULL;
	}
	*port = v;
	return end;
}

/* "LO : HI" (spaces around the colon optional). */
static const char *
parse_range(const char *p, const char *what, uint16_t *lo, uint16_t *hi, char *why, size_t whylen)
{
	if (*p == '\0') {
		snprintf(why, whylen, "missing %s port range", what);
		return NULL;
	}
	p = parse_port(p, what, lo, why, whylen);
	if (p == NULL)
		return NULL;
	p = skip_space(p);
	if (*p != ':') {
		snprintf(why, whylen, "%s port range: expected LO : HI", what);
		return NULL;
	}
	p = skip_space(p + 1);
	p = parse_port(p, what, hi, why, whylen);
	if (p == NULL)
		return NULL;
	if (*lo > *hi) {
		snprintf(why, whylen, "%s port range: low end above high end", what);
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
	p = parse_hex(p, max, v);
	if (p != NULL && *p == '/')
		p = parse_hex(p + 1, max, m);
	else
		p = NULL;
	if (p == NULL || (*p != '\0' && !isspace((unsigned char)*p))) {
		snprintf(why, whylen, "%s: expected 0xVALUE/0xMASK, at most 0x%lx", what, max);
		return NULL;
	}
	return p;
}

int
acl_parse_line(const char *line, struct acl_rule *out, char *why, size_t whylen)
{
	const char *p = skip_space(line);
	unsigned long v, m;
	size_t n;

	if (*p == '\0' || *p == '#')
		return 0;
	if (*p != '@')
		return lf_line_error(why, whylen, "a rule must start with '@'");
	memset(out, 0, sizeof(*out));
	out->action = ACL_DENY;

	p = parse_prefix(p + 1, "source", &out->src, &out->src_len, why, whylen);
	if (p == NULL)
		return -EINVAL;
	p = skip_space(p);
	p = parse_prefix(p, "destination", &out->dst, &out->dst_len, why, whylen);
	if (p == NULL)
		return -EINVAL;
	p = skip_space(p);
	p = parse_range(p, "source", &out->sport_lo, &out->sport_hi, why, whylen);
	if (p == NULL)
		return -EINVAL;
	p = skip_space(p);
	p = parse_range(p, "destination", &out->dport_lo, &out->dport_hi, why, whylen);
	if (p == NULL)
		return -EINVAL;
	p = skip_space(p);
	if (*p == '\0')
		return lf_line_error(why, whylen, "missing protocol");
	p = parse_value_mask(p, "protocol", UINT8_MAX, &v, &m, why, whylen);
	if (p == NULL)
		return -EINVAL;
	out->proto = v & m;
	out->proto_mask = m;
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
		out->action = ACL_PERMIT;
		p = skip_space(p + n);
	} else if (n == 4 && strncmp(p, "deny", 4) == 0) {
		out->action = ACL_DENY;
		p = skip_space(p + n);
	}
	if (*p != '\0' && *p != '#')
		return lf_line_error(why, whylen, "trailing text after the rule");
	return 1;
}

/* lf_read_lines() callback: one rule line into the set. */
static int
acl_load_line(void *arg, const char *line, uint32_t lineno, char *why, size_t whylen)
{
	struct acl_rule_set *s = arg;
	struct acl_rule r;
	int ret;

	ret = acl_parse_line(line, &r, why, whylen);
	if (ret <= 0)
		return ret;
	if (s->n >= ACL_MAX_RULES) {
		snprintf(why, whylen, "more than %u rules", ACL_MAX_RULES);
		return -E2BIG;
	}
	if (lf_array_reserve((void **)&s->r, &s->cap, s->n, sizeof(*s->r)) != 0) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
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

void
acl_rule_set_free(struct acl_rule_set *s)
{
	free(s->r);
	s->r = NULL;
	s->n = s->cap = 0;
}

struct acl_ctx *
acl_build(const struct acl_rule_set *s, enum acl_action def, int socket, char *err, size_t errlen)
{
	static uint32_t seq;
	struct rte_acl_config cfg;
	struct rte_acl_param prm;
	char name[RTE_ACL_NAMESIZE];
	struct acl_ctx *ctx;
	size_t i;
	int ret;

	if (s->n > ACL_MAX_RULES) {
		snprintf(err, errlen, "%zu rules, at most %u", s->n, ACL_MAX_RULES);
		return NULL;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL)
		goto nomem;
	ctx->n = s->n;
	ctx->def = def;
	ctx->actions = calloc(s->n ? s->n : 1, 1);
	if (ctx->actions == NULL)
		goto nomem;
	for (i = 0; i < s->n; i++)
		ctx->actions[i] = s->r[i].action;
	if (s->n == 0)
		return ctx;

	/* rte_acl_create() hands back an existing context of the same name. */
	snprintf(name, sizeof(name), "lf_acl_%u", __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	memset(&prm, 0, sizeof(prm));
	prm.name = name;
	prm.socket_id = socket;
	prm.rule_size = RTE_ACL_RULE_SZ(F_NUM);
	prm.max_rule_num = s->n;
	ctx->acl = rte_acl_create(&prm);
	if (ctx->acl == NULL) {
		snprintf(err, errlen, "rte_acl_create: %s", rte_strerror(rte_errno));
		goto fail;
	}
	for (i = 0; i < s->n; i++) {
		const struct acl_rule *r = &s->r[i];
		struct acl4_rule ar;

		memset(&ar, 0, sizeof(ar));
		ar.data.category_mask = 1;
		/* Earlier lines win: rte_acl picks the highest priority. */
		ar.data.priority = RTE_ACL_MAX_PRIORITY - i;
		ar.data.userdata = i + 1;
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
	memset(&cfg, 0, sizeof(cfg));
	cfg.num_categories = 1;
	cfg.num_fields = F_NUM;
	memcpy(cfg.defs, acl4_defs, sizeof(acl4_defs));
	ret = rte_acl_build(ctx->acl, &cfg);
	if (ret != 0) {
		snprintf(err, errlen, "rte_acl_build: %s", strerror(-ret));
		goto fail;
	}
	return ctx;
nomem:
	snprintf(err, errlen, "out of memory");
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
