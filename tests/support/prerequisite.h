#pragma once

#include <QTest>

// Skips a test whose prerequisite is missing (a bubblewrap that can run, python3-venv, ...) on a
// developer's machine, but fails it where CI is set (.ci/run sets it): CI installs every
// prerequisite in its fresh root, so a skip there would be a suite that silently proved nothing.
#define DDL_REQUIRE_PREREQUISITE(condition, reason)                                                \
    do {                                                                                           \
        if (!(condition)) {                                                                        \
            if (qEnvironmentVariableIsSet("CI"))                                                   \
                QFAIL(qPrintable(QStringLiteral("missing in CI: ") + (reason)));                   \
            QSKIP(qPrintable(reason));                                                             \
        }                                                                                          \
    } while (false)
