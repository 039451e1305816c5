#pragma once

#include <QString>

class ClusterHarness;

namespace ddl::desktop {
class MainWindow;
}

// Drives the connect page of a MainWindow like a person: address, trust the fingerprint,
// then register (or log in). Returns an empty string, or what went wrong.
QString connectAndTrust(ddl::desktop::MainWindow &window, const QString &serverUrl);
QString registerThroughUi(ddl::desktop::MainWindow &window, const QString &email,
                          const QString &password);
// Submits the DDL project at repo (its task.yaml) through the submit wizard, page by page, and
// returns the new job's uuid, or an empty string with *problem set.
QString submitThroughWizard(ddl::desktop::MainWindow &window, const QString &repo,
                            QString *problem);
// The SHA-256 fingerprint of a certificate file as ddl shows it ("SHA256:AB:CD:...").
QString fingerprintOf(const QString &certificateFile);
