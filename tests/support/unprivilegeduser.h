#pragma once

#include <QString>

// A user of this machine that is not root, for the tests that run a worker the way a GPU owner
// should (issue 17): made with useradd when the test runs as root and it is not there yet, with
// subordinate ids for rootless podman (/etc/subuid, /etc/subgid).
struct UnprivilegedUser
{
    QString name;
    uint uid = 0;
    uint gid = 0;
    QString home;
    QString problem; // why there is none; empty when there is one

    bool isValid() const { return problem.isEmpty(); }
};

// The user called name, made when missing (needs root).
UnprivilegedUser ensureUnprivilegedUser(const QString &name);
