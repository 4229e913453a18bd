/* SPDX-License-Identifier: BSD-3-Clause
 * Frames: Eth/IPv4/UDP, by job: checksum arithmetic and offsets (uf_csum.h), the classifier
 * (uf_classify.h), a copy's header (uf_hdr.h). Pure functions on bytes: unit-tested without
 * EAL.
 */
#ifndef UF_PKT_H
#define UF_PKT_H

#include "uf_csum.h"
#include "uf_classify.h"
#include "uf_hdr.h"

#endif /* UF_PKT_H */
