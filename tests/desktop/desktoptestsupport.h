#pragma once

#include <QList>
#include <QString>
#include <QUrl>

class ClusterHarness;
class QWidget;

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
// Submits an OpenPAI job of one python3 role (tasks instances, gpus GPUs each) running command,
// retried up to retries times, as the editor would, and returns its uuid, or an empty string.
QString submitCommandJob(ddl::desktop::MainWindow &window, const QString &name,
                         const QString &command, int tasks = 1, int gpus = 0, int retries = 0);
// The SHA-256 fingerprint of a certificate file as ddl shows it ("SHA256:AB:CD:...").
QString fingerprintOf(const QString &certificateFile);

// What a widget did with a drag from the file manager carrying urls: the QDragEnterEvent,
// QDragMoveEvent and QDropEvent a real drag delivers, sent to target (at its centre) one after
// the other. Each is sent even when the one before was refused, to check that a drop arriving
// anyway is refused as well.
struct DragOutcome
{
    bool enterAccepted = false;
    bool moveAccepted = false;
    bool dropAccepted = false;
};
DragOutcome dragAndDrop(QWidget *target, const QList<QUrl> &urls);
