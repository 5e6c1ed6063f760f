/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * IPv4 and IPv6 5-tuple ACLs: ClassBench '@' rule files classified with
 * rte_acl, one classifier per address family.
 *
 * One rule per line:
 *
 *     @SRC/LEN  DST/LEN  SPLO : SPHI  DPLO : DPHI  0xPP/0xMM  [0xFFFF/0xFFFF]  [permit|deny]
 *
 * An IPv4 file has A.B.C.D prefixes of length 0 to 32; an IPv6 file has
 * prefixes in IPv6 text form (RFC 4291 2.2, e.g. 2001:db8::/32) of length 0
 * to 128, as DPDK's dpdk-test-acl reads them with --ipv6; the other fields
 * are the same for both families.
 *
 * Fields are separated by tabs or spaces, a trailing tab is allowed. The 6th
 * field (TCP flags value/mask) is accepted and ignored. Host bits set past
 * the prefix length are allowed, as ClassBench writes them, and masked off.
 * The optional last token, `permit` or `deny`, is an extension of this
 * module (ClassBench has no actions); a rule without it denies.
 * Blank lines and '#' comments are allowed. Priority is the line order: the
 * first rule that matches a packet wins.
 *
 * The [acl] section of the configuration runs them as a pipeline stage
 * (acl_stage.h). acl_classify(), acl_action(), acl_num_rules() and
 * acl_free() take a classifier of either family; the keys given to
 * acl_classify() must be those of its family (struct acl_key for one built
 * by acl_build(), struct acl6_key for one built by acl6_build()).
 */
#ifndef LF_ACL_H
#define LF_ACL_H

#include <stddef.h>
#include <stdint.h>

/** acl_classify() result of a packet that matches no rule. */
#define ACL_NO_MATCH UINT32_MAX

/** Most rules one table takes. */
#define ACL_MAX_RULES (1u << 20)

/** What a rule (or the table default) does with a packet. */
enum acl_action {
	ACL_DENY = 0,
	ACL_PERMIT = 1,
};

/** One parsed rule. Addresses and ports are in host byte order. */
struct acl_rule {
	uint32_t src; /**< Source prefix, host bits cleared. */
	uint32_t dst; /**< Destination prefix, host bits cleared. */
	uint8_t src_len;
	uint8_t dst_len;
	uint8_t proto; /**< Protocol value, already masked with proto_mask. */
	uint8_t proto_mask;
	uint16_t sport_lo;
	uint16_t sport_hi;
	uint16_t dport_lo;
	uint16_t dport_hi;
	uint8_t action; /**< enum acl_action. */
	uint32_t line; /**< Line in the file, 0 when not read from a file. */
};

/** Rules in priority order (index 0 first). */
struct acl_rule_set {
	size_t n;
	size_t cap;
	struct acl_rule *r;
};

/**
 * The classifier input: one per packet, fields in network byte order, as
 * rte_acl reads them. Pad must be there but its value does not matter.
 */
struct acl_key {
	uint8_t proto;
	uint8_t pad[3];
	uint32_t src;
	uint32_t dst;
	uint16_t sport;
	uint16_t dport;
};

/** One parsed IPv6 rule. Addresses in network byte order, ports in host order. */
struct acl6_rule {
	uint8_t src[16]; /**< Source prefix, host bits cleared. */
	uint8_t dst[16]; /**< Destination prefix, host bits cleared. */
	uint8_t src_len; /**< 0 to 128. */
	uint8_t dst_len;
	uint8_t proto; /**< Protocol value, already masked with proto_mask. */
	uint8_t proto_mask;
	uint16_t sport_lo;
	uint16_t sport_hi;
	uint16_t dport_lo;
	uint16_t dport_hi;
	uint8_t action; /**< enum acl_action. */
	uint32_t line; /**< Line in the file, 0 when not read from a file. */
};

/** IPv6 rules in priority order (index 0 first). */
struct acl6_rule_set {
	size_t n;
	size_t cap;
	struct acl6_rule *r;
};

/**
 * The IPv6 classifier input, fields in network byte order: the protocol is
 * the upper-layer protocol after any extension headers.
 */
struct acl6_key {
	uint8_t proto;
	uint8_t pad[3];
	uint8_t src[16];
	uint8_t dst[16];
	uint16_t sport;
	uint16_t dport;
};

/** A built classifier (opaque). */
struct acl_ctx;

/**
 * Parse one line.
 * @return 1 for a rule, 0 for a blank or comment line, -EINVAL with a reason
 *         in why.
 */
int acl_parse_line(const char *line, struct acl_rule *out, char *why, size_t whylen);

/**
 * Load a whole rule file. On failure nothing stays allocated and s is empty.
 * @return number of rules, or -errno with "FILE:LINE: 'text': reason" in err.
 */
long acl_load(const char *path, struct acl_rule_set *s, char *err, size_t errlen);

/** Free the rules of s and leave it empty. */
void acl_rule_set_free(struct acl_rule_set *s);

/**
 * Build an IPv4 classifier from s (which may be empty); its keys are
 * struct acl_key. s is not kept.
 * @param def Action of packets no rule matches.
 * @param socket NUMA socket for the tables, or SOCKET_ID_ANY.
 * @return the classifier, or NULL with the reason in err.
 */
struct acl_ctx *acl_build(const struct acl_rule_set *s, enum acl_action def, int socket, char *err,
			  size_t errlen);

/**
 * Parse one IPv6 rule line (acl_parse_line() for IPv6 prefixes).
 * @return 1 for a rule, 0 for a blank or comment line, -EINVAL with a reason
 *         in why.
 */
int acl6_parse_line(const char *line, struct acl6_rule *out, char *why, size_t whylen);

/**
 * Load a whole IPv6 rule file. On failure nothing stays allocated and s is
 * empty.
 * @return number of rules, or -errno with "FILE:LINE: 'text': reason" in err.
 */
long acl6_load(const char *path, struct acl6_rule_set *s, char *err, size_t errlen);

/** Free the rules of s and leave it empty. */
void acl6_rule_set_free(struct acl6_rule_set *s);

/**
 * Build an IPv6 classifier from s (which may be empty); its keys are
 * struct acl6_key. s is not kept.
 * @param def Action of packets no rule matches.
 * @param socket NUMA socket for the tables, or SOCKET_ID_ANY.
 * @return the classifier, or NULL with the reason in err.
 */
struct acl_ctx *acl6_build(const struct acl6_rule_set *s, enum acl_action def, int socket,
			   char *err, size_t errlen);

/** Free a classifier. NULL is allowed. */
void acl_free(struct acl_ctx *ctx);

/**
 * Classify n packets.
 * @param data Pointers to keys of the classifier's family (struct acl_key
 *        or struct acl6_key), one per packet.
 * @param results Per packet, the index of the first rule that matches it or
 *        ACL_NO_MATCH.
 * @return 0, or a negative errno from rte_acl_classify().
 */
int acl_classify(const struct acl_ctx *ctx, const uint8_t **data, uint32_t *results, uint32_t n);

/** The action for an acl_classify() result (the default for ACL_NO_MATCH). */
enum acl_action acl_action(const struct acl_ctx *ctx, uint32_t result);

/** Number of rules in the classifier. */
uint32_t acl_num_rules(const struct acl_ctx *ctx);

#endif /* LF_ACL_H */
