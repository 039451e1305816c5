#include "stopconfirmation.h"

#include <QMessageBox>
#include <QPushButton>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

// How many names the question lists before it says "and N more".
static constexpr int NamesShown = 5;

void StopConfirmation::ask(QWidget *parent,
                           const QStringList &jobNames,
                           std::function<void()> onConfirmed)
{
    const int count = int(jobNames.size());
    QStringList shown = jobNames.mid(0, NamesShown);
    for (QString &name : shown)
        name = name.toHtmlEscaped();
    QString list = u"<b>"_s + shown.join(u"</b>, <b>"_s) + u"</b>"_s;
    if (count > NamesShown)
        list += tr(" and %n more", nullptr, count - NamesShown);

    auto *box = new QMessageBox(parent);
    box->setObjectName(QString::fromLatin1(ObjectName));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setIcon(QMessageBox::Warning);
    box->setWindowTitle(tr("Stop %n job(s)?", nullptr, count));
    box->setTextFormat(Qt::RichText);
    box->setText(tr("Stop %n job(s)? %1", nullptr, count).arg(list));
    box->setInformativeText(tr("Running tasks are killed and the job ends as Stopped; its "
                               "outputs so far are kept. This cannot be undone."));
    QPushButton *stop =
        box->addButton(tr("Stop job(s)", nullptr, count), QMessageBox::DestructiveRole);
    stop->setObjectName(QStringLiteral("stopButton"));
    QPushButton *keep = box->addButton(tr("Keep running"), QMessageBox::RejectRole);
    keep->setObjectName(QStringLiteral("keepButton"));
    box->setDefaultButton(keep);
    box->setEscapeButton(keep);
    QObject::connect(box, &QMessageBox::finished, box, [box, stop, onConfirmed] {
        if (box->clickedButton() == stop)
            onConfirmed();
    });
    box->setWindowModality(Qt::WindowModal);
    box->show();
}

} // namespace ddl::desktop
