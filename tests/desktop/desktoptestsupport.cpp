#include "desktoptestsupport.h"

#include "api/apiclient.h"
#include "views/mainwindow.h"

#include <QGroupBox>
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
