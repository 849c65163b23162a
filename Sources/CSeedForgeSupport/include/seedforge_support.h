#ifndef SEEDFORGE_SUPPORT_H
#define SEEDFORGE_SUPPORT_H

/// Atomically exchanges two paths (Linux renameat2 with RENAME_EXCHANGE).
/// Returns 0 on success, -1 with errno set otherwise (EINVAL or ENOSYS where the
/// file system or kernel cannot exchange).
int seedforge_exchange_paths(const char *first, const char *second);

#endif
