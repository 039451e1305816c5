#include "connectpage.h"

#include "core/desktopsettings.h"
#include "core/session.h"

#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

ConnectPage::ConnectPage(Session &session, DesktopSettings &settings, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_settings(settings)
{
    auto *title = new QLabel(tr("<h2>Connect to a DDL server</h2>"), this);

    auto *serverBox = new QGroupBox(tr("Server"), this);
    m_serverEdit = new QLineEdit(settings.serverUrl(), serverBox);
    m_serverEdit->setObjectName(u"serverEdit"_s);
    m_serverEdit->setPlaceholderText(tr("https://host:8443"));
    m_caEdit = new QLineEdit(serverBox);
    m_caEdit->setObjectName(u"caEdit"_s);
    m_caEdit->setPlaceholderText(tr("optional: the server's certificate or CA file"));
    auto *browse = new QPushButton(tr("Browse…"), serverBox);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString file = QFileDialog::getOpenFileName(this, tr("CA certificate"), {},
                                                          tr("Certificates (*.crt *.pem)"));
        if (!file.isEmpty())
            m_caEdit->setText(file);
    });
    m_connectButton = new QPushButton(tr("Connect"), serverBox);
    m_connectButton->setObjectName(u"connectButton"_s);
    m_connectButton->setDefault(true);
    auto *caRow = new QHBoxLayout;
    caRow->addWidget(m_caEdit);
    caRow->addWidget(browse);
    auto *serverForm = new QFormLayout(serverBox);
    serverForm->addRow(tr("Address:"), m_serverEdit);
    serverForm->addRow(tr("CA file:"), caRow);
    serverForm->addRow(QString(), m_connectButton);

    m_trustBox = new QGroupBox(tr("First connection to this server"), this);
    m_fingerprintLabel = new QLabel(m_trustBox);
    m_fingerprintLabel->setObjectName(u"fingerprintLabel"_s);
    m_fingerprintLabel->setWordWrap(true);
    m_fingerprintLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_trustButton = new QPushButton(tr("Trust this certificate"), m_trustBox);
    m_trustButton->setObjectName(u"trustButton"_s);
    auto *trustLayout = new QVBoxLayout(m_trustBox);
    trustLayout->addWidget(m_fingerprintLabel);
    trustLayout->addWidget(m_trustButton, 0, Qt::AlignLeft);
    m_trustBox->hide();

    m_loginBox = new QGroupBox(tr("Account"), this);
    m_emailEdit = new QLineEdit(settings.email(), m_loginBox);
    m_emailEdit->setObjectName(u"emailEdit"_s);
    m_passwordEdit = new QLineEdit(m_loginBox);
    m_passwordEdit->setObjectName(u"passwordEdit"_s);
    m_passwordEdit->setEchoMode(QLineEdit::Password);
    m_loginButton = new QPushButton(tr("Log in"), m_loginBox);
    m_loginButton->setObjectName(u"loginButton"_s);
    m_registerButton = new QPushButton(tr("Register"), m_loginBox);
    m_registerButton->setObjectName(u"registerButton"_s);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_loginButton);
    buttons->addWidget(m_registerButton);
    buttons->addStretch();
    auto *loginForm = new QFormLayout(m_loginBox);
    loginForm->addRow(tr("Email:"), m_emailEdit);
    loginForm->addRow(tr("Password:"), m_passwordEdit);
    loginForm->addRow(QString(), buttons);
    m_loginBox->setEnabled(false);

    m_statusLabel = new QLabel(this);
    m_statusLabel->setObjectName(u"statusLabel"_s);
    m_statusLabel->setWordWrap(true);

    auto *column = new QVBoxLayout;
    column->addWidget(title);
    column->addWidget(serverBox);
    column->addWidget(m_trustBox);
    column->addWidget(m_loginBox);
    column->addWidget(m_statusLabel);
    column->addStretch();
    auto *centered = new QHBoxLayout(this);
    centered->addStretch();
    centered->addLayout(column, 3);
    centered->addStretch();

    connect(m_connectButton, &QPushButton::clicked, this, &ConnectPage::handleConnect);
    connect(m_serverEdit, &QLineEdit::returnPressed, this, &ConnectPage::handleConnect);
    connect(m_trustButton, &QPushButton::clicked, this, [this] {
        m_trustBox->hide();
        setBusy(true);
        m_session.trustCertificate(m_offeredSha256);
    });
    connect(m_loginButton, &QPushButton::clicked, this, [this] {
        setBusy(true);
        m_statusLabel->setText(tr("Logging in…"));
        m_session.login(m_emailEdit->text().trimmed(), m_passwordEdit->text());
    });
    connect(m_passwordEdit, &QLineEdit::returnPressed, m_loginButton, &QPushButton::click);
    connect(m_registerButton, &QPushButton::clicked, this, [this] {
        if (m_passwordEdit->text().size() < 8) {
            showMessage(tr("Choose a password of at least 8 characters."));
            return;
        }
        setBusy(true);
        m_statusLabel->setText(tr("Creating the account…"));
        m_session.registerUser(m_emailEdit->text().trimmed(), m_passwordEdit->text());
    });
    connect(&session, &Session::certificateNeedsTrust, this, &ConnectPage::handleCertificate);
    connect(&session, &Session::connected, this, &ConnectPage::handleConnected);
    connect(&session, &Session::failed, this, &ConnectPage::handleFailed);
    connect(&session, &Session::loggedIn, this, [this] {
        setBusy(false);
        m_passwordEdit->clear();
        m_statusLabel->clear();
    });
    connect(&session, &Session::sessionExpired, this, &ConnectPage::showMessage);
}

void ConnectPage::showMessage(const QString &message)
{
    m_statusLabel->setText(message);
}

void ConnectPage::setBusy(bool busy)
{
    m_connectButton->setEnabled(!busy);
    m_loginButton->setEnabled(!busy);
    m_registerButton->setEnabled(!busy);
}

void ConnectPage::handleConnect()
{
    m_trustBox->hide();
    m_loginBox->setEnabled(false);
    setBusy(true);
    m_statusLabel->setText(tr("Connecting…"));
    m_session.connectToServer(m_serverEdit->text(), m_caEdit->text().trimmed());
}

void ConnectPage::handleCertificate(const QString &fingerprint, const QByteArray &sha256Hex)
{
    setBusy(false);
    m_offeredSha256 = sha256Hex;
    m_offeredFingerprint = fingerprint;
    showFingerprint();
    m_trustBox->show();
    m_statusLabel->clear();
}

void ConnectPage::showFingerprint()
{
    m_fingerprintLabel->setText(
        tr("The server presents a certificate no one vouches for yet. Compare its fingerprint "
           "with the one the server printed at start (ddl-server logs it) before you trust "
           "it:\n\n%1").arg(m_offeredFingerprint));
}

void ConnectPage::takeStateFrom(const ConnectPage &old)
{
    m_serverEdit->setText(old.m_serverEdit->text());
    m_caEdit->setText(old.m_caEdit->text());
    m_emailEdit->setText(old.m_emailEdit->text());
    m_passwordEdit->setText(old.m_passwordEdit->text());
    m_offeredSha256 = old.m_offeredSha256;
    m_offeredFingerprint = old.m_offeredFingerprint;
    showFingerprint();
    m_trustBox->setVisible(!old.m_trustBox->isHidden());
    m_loginBox->setEnabled(old.m_loginBox->isEnabled());
    setBusy(!old.m_connectButton->isEnabled());
    // A message already shown stays as it was written; the next one is in the new language.
    m_statusLabel->setText(old.m_statusLabel->text());
}

void ConnectPage::handleConnected()
{
    setBusy(false);
    m_loginBox->setEnabled(true);
    m_statusLabel->setText(tr("Connected to %1.").arg(m_session.serverKey()));
    if (m_emailEdit->text().isEmpty())
        m_emailEdit->setFocus();
    else
        m_passwordEdit->setFocus();
}

void ConnectPage::handleFailed(const QString &message)
{
    setBusy(false);
    m_statusLabel->setText(message);
}

} // namespace ddl::desktop
