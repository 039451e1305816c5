#pragma once

#include <QString>

// The image of the tests that run containers: a tiny root made on this machine with python3
// (scripts/make-test-image.sh, ID=ddl-test in its /etc/os-release), so that no test needs a
// registry. The tag follows the script: a new layout gets a new tag.
inline const QString TestImage = QStringLiteral("localhost/ddl-test:1");

// Builds TestImage with podman when it is not there yet (a fresh root has none); empty when it
// is there, else what failed.
QString ensureTestImage(const QString &podman);

// Why podman cannot start a container of TestImage here (the kernel or a container around the
// test may refuse user or mount namespaces or cgroups); empty when it can.
QString containerProblem(const QString &podman);
