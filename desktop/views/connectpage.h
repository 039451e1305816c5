#pragma once

#include <QWidget>

class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace ddl::desktop {

class DesktopSettings;
class Session;

// The first screen: the server's address (and optionally its CA file), the certificate's
// fingerprint to confirm on first contact, then log in or register.
class ConnectPage : public QWidget
{
    Q_OBJECT
public:
    ConnectPage(Session &session, DesktopSettings &settings, QWidget *parent = nullptr);

    void showMessage(const QString &message);
    // Carries over what the person typed and where the connection stands from the page this one
    // replaces (the main window rebuilds its pages when the language changes).
    void takeStateFrom(const ConnectPage &old);

private:
    void handleConnect();
    void handleCertificate(const QString &fingerprint, const QByteArray &sha256Hex);
    void handleConnected();
    void handleFailed(const QString &message);
    void setBusy(bool busy);
    void showFingerprint();

    Session &m_session;
    DesktopSettings &m_settings;
    QLineEdit *m_serverEdit;
    QLineEdit *m_caEdit;
    QPushButton *m_connectButton;
    QGroupBox *m_trustBox;
    QLabel *m_fingerprintLabel;
    QPushButton *m_trustButton;
    QGroupBox *m_loginBox;
    QLineEdit *m_emailEdit;
    QLineEdit *m_passwordEdit;
    QPushButton *m_loginButton;
    QPushButton *m_registerButton;
    QLabel *m_statusLabel;
    QByteArray m_offeredSha256;
    QString m_offeredFingerprint;
};

} // namespace ddl::desktop
