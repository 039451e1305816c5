#include "desktoptestsupport.h"

#include "api/apiclient.h"
#include "core/session.h"
#include "jobs/jobsubmission.h"
#include "jobspec/jobspecparser.h"
#include "views/mainwindow.h"
#include "wizard/folderfield.h"
#include "wizard/submitwizard.h"

#include <QDragEnterEvent>
#include <QDragMoveEvent>
#include <QDropEvent>
#include <QFile>
#include <QGroupBox>
#include <QMimeData>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSslCertificate>
#include <QTest>

using namespace Qt::Literals::StringLiterals;

template<typename T>
static T *child(QObject *parent, const QString &name)
{
    return parent->findChild<T *>(name);
}

static bool waitFor(const std::function<bool()> &condition, int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    while (!condition()) {
        if (timer.elapsed() > timeoutMs)
            return false;
        QTest::qWait(20);
    }
    return true;
}

QString fingerprintOf(const QString &certificateFile)
{
    const QList<QSslCertificate> certificates = QSslCertificate::fromPath(certificateFile);
    return certificates.isEmpty() ? QString() : ddl::formatFingerprint(certificates.first());
}

QString connectAndTrust(ddl::desktop::MainWindow &window, const QString &serverUrl)
{
    auto *server = child<QLineEdit>(&window, u"serverEdit"_s);
    auto *connectButton = child<QPushButton>(&window, u"connectButton"_s);
    auto *trust = child<QPushButton>(&window, u"trustButton"_s);
    auto *status = child<QLabel>(&window, u"statusLabel"_s);
    auto *login = child<QPushButton>(&window, u"loginButton"_s);
    if (!server || !connectButton || !trust || !status || !login)
        return u"the connect page lacks its widgets"_s;
    server->setText(serverUrl);
    QTest::mouseClick(connectButton, Qt::LeftButton);
    if (!waitFor([trust] { return trust->isVisible(); }, 15000))
        return u"no fingerprint was offered; status: "_s + status->text();
    QTest::mouseClick(trust, Qt::LeftButton);
    if (!waitFor([login] { return login->isEnabled() && login->parentWidget()->isEnabled(); },
                 15000))
        return u"not connected after trusting; status: "_s + status->text();
    return {};
}

QString registerThroughUi(ddl::desktop::MainWindow &window, const QString &email,
                          const QString &password)
{
    auto *emailEdit = child<QLineEdit>(&window, u"emailEdit"_s);
    auto *passwordEdit = child<QLineEdit>(&window, u"passwordEdit"_s);
    auto *registerButton = child<QPushButton>(&window, u"registerButton"_s);
    auto *status = child<QLabel>(&window, u"statusLabel"_s);
    emailEdit->setText(email);
    passwordEdit->setText(password);
    QTest::mouseClick(registerButton, Qt::LeftButton);
    if (!waitFor([&window] { return window.isLoggedIn(); }, 15000))
        return u"not logged in after registering; status: "_s + status->text();
    return {};
}

QString submitCommandJob(ddl::desktop::MainWindow &window, const QString &name,
                         const QString &command, int tasks, int gpus, int retries)
{
    ddl::JobSpec spec;
    spec.kind = ddl::JobSpec::Kind::OpenPai;
    spec.jobName = name;
    spec.image = QStringLiteral("python3");
    ddl::TaskRole role;
    role.name = QStringLiteral("main");
    role.taskNumber = tasks;
    role.gpuNumber = gpus;
    role.memoryMB = 256;
    role.command = command;
    spec.taskRoles = {role};
    spec.retryCount = retries;
    ddl::desktop::SubmissionRequest request;
    request.spec = spec;
    ddl::desktop::JobSubmission submission(window.session()->client(), request);
    submission.start();
    if (!QTest::qWaitFor(
            [&] { return submission.stage() == ddl::desktop::JobSubmission::Stage::Done; }, 20000))
        return {};
    return submission.jobUuid();
}

QString submitThroughWizard(ddl::desktop::MainWindow &window, const QString &repo,
                            QString *problem)
{
    using ddl::desktop::SubmitWizard;
    QFile taskYaml(repo + u"/task.yaml"_s);
    if (!taskYaml.open(QIODevice::ReadOnly)) {
        *problem = u"no task.yaml in "_s + repo;
        return {};
    }
    ddl::Result<ddl::JobSpec> spec = ddl::JobSpecParser::parseTaskYaml(taskYaml.readAll(),
                                                                        u"project"_s);
    if (!spec) {
        *problem = spec.error().message;
        return {};
    }
    SubmitWizard *wizard = window.openSubmitWizard(*spec);
    wizard->findChild<ddl::desktop::FolderField *>(u"projectFolder"_s)->setPath(repo);
    wizard->next();
    if (!waitFor([wizard] { return wizard->currentPage()->isComplete(); }, 20000)) {
        *problem = u"the git check did not pass"_s;
        return {};
    }
    for (int page = SubmitWizard::DatasetPage; page <= SubmitWizard::SubmitPage; ++page)
        wizard->next();
    if (wizard->currentId() != SubmitWizard::SubmitPage) {
        *problem = u"the wizard stopped at page %1"_s.arg(wizard->currentId());
        return {};
    }
    if (!waitFor([wizard] { return !wizard->submittedUuid().isEmpty(); }, 30000)) {
        *problem = u"no job was submitted"_s;
        return {};
    }
    const QString uuid = wizard->submittedUuid();
    wizard->accept();
    return uuid;
}

DragOutcome dragAndDrop(QWidget *target, const QList<QUrl> &urls)
{
    QMimeData mime;
    mime.setUrls(urls);
    const QPoint at = target->rect().center();
    DragOutcome outcome;
    QDragEnterEvent enter(at, Qt::CopyAction | Qt::MoveAction | Qt::LinkAction, &mime,
                          Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(target, &enter);
    outcome.enterAccepted = enter.isAccepted();
    QDragMoveEvent move(at, Qt::CopyAction | Qt::MoveAction | Qt::LinkAction, &mime,
                        Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(target, &move);
    outcome.moveAccepted = move.isAccepted();
    QDropEvent drop(QPointF(at), Qt::CopyAction | Qt::MoveAction | Qt::LinkAction, &mime,
                    Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(target, &drop);
    outcome.dropAccepted = drop.isAccepted();
    return outcome;
}
