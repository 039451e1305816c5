#include "messagebar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

MessageBar::MessageBar(QWidget *parent)
    : QFrame(parent)
{
    setObjectName(u"messageBar"_s);
    setFrameShape(QFrame::StyledPanel);
    // An error's colours from the palette's own, so a dark theme gets a dark band.
    setAutoFillBackground(true);
    QPalette colours = palette();
    QColor band = colours.color(QPalette::Base);
    band = QColor::fromHsl(0, 160, band.lightness() > 128 ? 235 : 45);
    colours.setColor(QPalette::Window, band);
    setPalette(colours);

    auto *icon = new QLabel(this);
    const int size = style()->pixelMetric(QStyle::PM_SmallIconSize);
    icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(size, size));
    m_text = new QLabel(this);
    m_text->setObjectName(u"messageText"_s);
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *close = new QToolButton(this);
    close->setObjectName(u"messageClose"_s);
    close->setAutoRaise(true);
    close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    close->setToolTip(tr("Close"));
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    auto *layout = new QHBoxLayout(this);
    layout->addWidget(icon, 0, Qt::AlignTop);
    layout->addWidget(m_text, 1);
    layout->addWidget(close, 0, Qt::AlignTop);
    hide();
}

void MessageBar::showError(const QString &message)
{
    m_text->setText(message);
    show();
}

QString MessageBar::text() const
{
    return isVisible() ? m_text->text() : QString();
}

} // namespace ddl::desktop
