// libsrtp 2 (Debian's libsrtp2-dev) for Swift: SRTP / SRTCP protection of RTP packets. The
// header is included whole; the few macros Swift cannot import (function-like or built from
// other macros) are given here as plain inline functions.
#ifndef TESSERA_CSRTP_SHIM_H
#define TESSERA_CSRTP_SHIM_H

#include <srtp2/srtp.h>

/// SRTP_MAX_TRAILER_LEN: what srtp_protect may write after an RTP packet (tag + MKI).
static inline int tessera_srtp_max_trailer_len(void) { return SRTP_MAX_TRAILER_LEN; }

/// srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80 is a macro for the RTP default policy.
static inline void tessera_srtp_policy_aes_cm_128_hmac_sha1_80(srtp_crypto_policy_t *policy) {
    srtp_crypto_policy_set_rtp_default(policy);
}

#endif
