/* SPDX-License-Identifier: BSD-3-Clause */
/* Placeholder: being written (issue 14). */
typedef int lf_placeholder_pfcp_agent;
