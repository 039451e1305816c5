#include "serveraddress.h"

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

Result<QUrl> ServerAddress::parse(const QString &text)
{
    QString trimmed = text.trimmed();
    if (trimmed.isEmpty())
        return Error::make(u"bad_url"_s, tr("Enter the server address, e.g. https://host:8443."),
                           u"server"_s);
    if (!trimmed.contains(u"://"_s))
        trimmed.prepend(u"https://"_s);
    QUrl url(trimmed, QUrl::StrictMode);
    if (!url.isValid() || url.host().isEmpty()) {
        return Error::make(u"bad_url"_s, tr("%1 is not a server address; write it as "
                                            "https://host:port.").arg(text), u"server"_s);
    }
    if (url.scheme() != u"https"_s) {
        return Error::make(u"bad_url"_s, tr("DDL servers speak HTTPS only; use https://%1.")
                                             .arg(url.authority()), u"server"_s);
    }
    QUrl normal;
    normal.setScheme(u"https"_s);
    normal.setHost(url.host().toLower());
    normal.setPort(url.port(443));
    return normal;
}

QString ServerAddress::key(const QUrl &url)
{
    return u"https://"_s + url.host() + u':' + QString::number(url.port(443));
}

} // namespace ddl::desktop
